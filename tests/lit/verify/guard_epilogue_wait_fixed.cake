// The fixed twin of guard_epilogue_wait_only.cake: the loop keeps one wgmma group in flight (`wgmma.wait 1`
// before the previous stage's release), and the segment-end epilogue under a condition the analysis cannot
// evaluate drains the rest (`wgmma.wait 0`) before the accumulator is stored (the stream-K GEMM's shape).
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified
target sm_90a;

kernel seg<BM = 64, BN = 64, BK = 64, S = 4, G = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: f32[M, N] align(16))
  requires(K % 8 == 0, N % 2 == 0, cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) <= 1000000,
           cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) >= G)
  grid(G) threads(160)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let k_tiles = cdiv(K, BK);
  let tiles_n = cdiv(N, BN);
  let total = cdiv(M, BM) * tiles_n * k_tiles;
  let first = i32(block.x) * total / G;
  let count = (i32(block.x) + 1) * total / G - first;

  role load = warp(4) {
    elect {
      for j in 0..count {
        let it = first + j;
        let s = j % S;
        wait empty[s] parity(((j / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s] <- A[(it / k_tiles / tiles_n) * BM, (it % k_tiles) * BK] signal(full[s]);
        tma.load b[s] <- B[(it / k_tiles % tiles_n) * BN, (it % k_tiles) * BK] signal(full[s]);
      }
    }
  }

  role math = warpgroup(0) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for j in 0..count {
      let it = first + j;
      let s = j % S;
      wait full[s] parity((j / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;
      if j > 0 {
        elect {
          arrive empty[(j - 1) % S];
        }
      }
      if it % k_tiles == k_tiles - 1 || j == count - 1 {
        wgmma.wait 0;
        store C[(it / k_tiles / tiles_n) * BM, (it / k_tiles % tiles_n) * BN] <- acc;
        acc = 0.0;
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(count - 1) % S];
    }
  }
}
