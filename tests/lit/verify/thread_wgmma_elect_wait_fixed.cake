// RUN: %cakec --verify-only --verify-diagnostics %s
// Fixed twin of thread_wgmma_elect_wait.cake: every thread of the math warpgroup waits for the stage before
// the wgmma that reads it.
target sm_90a;

kernel pipe<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0)
  grid(M / BM, N / BN) threads(256)
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
  let k_tiles = K / BK;

  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[i32(block.x) * BM, k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math = warpgroup(1) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}
