// Arrival count off by one warpgroup: 'empty' declares 8 arrivals, but only the 4 warps of one
// warpgroup release a stage (elect: one arrival per warp).
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
  mbarrier empty[S] arrivals(8);
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
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@16 E0603 {{mbarrier 'empty[0]' phase 0 receives 4 arrivals, but it is declared with arrivals(8)}}
// expected-note@16 {{counterexample: loop 'k' runs 1 iteration (M = 64, K = 64, N = 64)}}
// expected-note@49 {{math arrives here (k = 0) (4 threads per execution)}}
// expected-note@16 {{declared here with arrivals(8)}}
// expected-note@16 {{the kernel ends with this phase incomplete}}
// expected-error@30 E0611 {{deadlock: load waits forever on 'empty[0]' for phase 0 (k = 2): it has completed 0 phases, and the current one has 4 of 8 arrivals}}
// expected-note@30 {{counterexample: loop 'k' runs 3 iterations (M = 64, K = 192, N = 64)}}
// expected-note@43 {{math waits forever on 'full[0]' for phase 1 (k = 2): it has completed 1 phase, and the current one has 0 of 1 arrivals}}
// expected-note@16 {{'empty[0]' is declared here with arrivals(8)}}
