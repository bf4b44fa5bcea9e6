// samples/hopper_gemm.cake with its element type as a type parameter: <T: type = bf16>, the expect_tx byte
// count BM * BK * sizeof(T), the swizzle span check BK * sizeof(T) == 128 and the epilogue T(acc).  One
// source, verified and compiled for bf16 (the default) and f16 (-D T=f16).
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %cakec --verify-only --verify-diagnostics -D T=f16 %s
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s --check-prefixes=CHECK,BF16
// RUN: %cakec %s --emit=ptx -D T=f16 -o - | %FileCheck %s --check-prefixes=CHECK,F16
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec %s -o %t.dir/bf16.cubin
// RUN: %cakec %s -D T=f16 -o %t.dir/f16.cubin
// RUN: %FileCheck %s --check-prefix=MANIFEST < %t.dir/f16.cubin.json
// MANIFEST: "ct_params": {"BM": 128, "BN": 256, "BK": 64, "S": 4, "T": "f16"},
// MANIFEST: {"name": "A", "kind": "tensor", "dtype": "f16"
// MANIFEST: {"name": "B", "kind": "tensor", "dtype": "f16"
// MANIFEST: {"name": "C", "kind": "tensor", "dtype": "f16"
// The estimate takes the type too (f16 and bf16 move the same bytes and run at the same tensor-core rate).
// RUN: %cakec %s --estimate --shape M=4096,N=4096,K=4096 -D T=f16 | %FileCheck %s --check-prefix=EST
// EST: hopper_gemm_typed
// A wrong width for the swizzle span is caught by the requires: f32 rows of BK = 64 are 256 bytes.
// RUN: %expect-exit 1 %cakec --verify-only -D T=f32 %s 2>&1 | %FileCheck %s --check-prefix=F32
// F32: error:
// The TMA ring: full[s] expects (BM + BN) * BK * sizeof(T) = 49152 bytes for both 2-byte types.
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 {{.*}}, 49152;
// BF16: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// F16: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// BF16: cvt.rn.bf16x2.f32
// F16: cvt.rn.f16x2.f32
target sm_90a;

kernel hopper_gemm_typed<T: type = bf16, BM = 128, BN = 256, BK = 64, S = 4>(
    A: T[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: T[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: T[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, BM == 128, BK * sizeof(T) == 128, S >= 2)
  grid(M / BM, N / BN) threads(384)
{
  shared a: T[S][BM, BK] swizzle(128B) align(1024);
  shared b: T[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let m0 = i32(block.x) * BM;
  let n0 = i32(block.y) * BN;
  let k_tiles = K / BK;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * sizeof(T));
          tma.load a[s] <- A[m0, k * BK] signal(full[s]);
          tma.load b[s] <- B[n0, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;
      if k > 0 {
        elect {
          arrive empty[(k - 1) % S];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_tiles - 1) % S];
    }

    store C[m0 + 64 * math.index, n0] <- T(acc);
  }
}
