// A stage index written as a bit mask, `k & (S - 1)` (samples/hopper_gemm.cake with its `% S` stage indices
// rewritten): the translator's integer form of `x & c` for a constant c (runs of bits, floor division and
// modulus by powers of two) keeps the periodicity proofs linear, where 64-bit bit-vectors took 2 s per query
// and ran out of the limit (E0602, 16 s in all).  With S = 4 the mask is the stage and the kernel verifies;
// with S = 3 `k & 2` sends k-tiles 0 and 1 to stage 0: refuted at once (E0603), not timed out.
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified:
// RUN: %expect-exit 1 %cakec --verify-only -D S=3 %s 2>&1 | %FileCheck %s --check-prefix=S3
// S3: receives 2 arrivals, but it is declared with arrivals(1) [E0603]
// S3-NOT: E0602
target sm_90a;

kernel hopper_gemm<BM = 128, BN = 256, BK = 64, S = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, BM == 128, BK * 2 == 128, S >= 2)
  grid(M / BM, N / BN) threads(384)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
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
          let s = k & (S - 1);
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[m0, k * BK] signal(full[s]);
          tma.load b[s] <- B[n0, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k & (S - 1);
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;                      // k-tile k-1's group is done: its stage can be refilled
      if k > 0 {
        elect {
          arrive empty[(k - 1) & (S - 1)];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_tiles - 1) & (S - 1)];   // release the last stage too (keeps every phase balanced)
    }

    store C[m0 + 64 * math.index, n0] <- bf16(acc);
  }
}
