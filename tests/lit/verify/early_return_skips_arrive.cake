// Early return skipping an arrive: the consumer returns in iteration 1 before releasing stage 1, so
// the producer's wait for the release of stage 1 (iteration 3) never completes.
// RUN: %cakec --verify-only --verify-diagnostics %s
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
      if k == 1 {
        return;
      }
      elect {
        arrive empty[s];
      }
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@32 E0612 {{tma.load by load (k = 2) into 'a[0]' may still be in flight when the kernel exits}}
// expected-note@32 {{counterexample: loop 'k' runs 3 iterations (M = 64, K = 192, N = 64)}}
// expected-note@43 {{math's last wait on 'full[0]' is here (k = 0), for phase 0}}
// expected-error@30 E0611 {{deadlock: load waits forever on 'empty[1]' for phase 0 (k = 3): it has completed 0 phases, and the current one has 0 of 4 arrivals}}
// expected-note@30 {{counterexample: loop 'k' runs 4 iterations (M = 64, K = 256, N = 64)}}
// expected-note@47 {{math has finished; its last synchronisation is here (k = 1)}}
// expected-note@16 {{'empty[1]' is declared here with arrivals(4)}}
