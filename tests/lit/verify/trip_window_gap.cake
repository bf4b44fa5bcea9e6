// RUN: %cakec --verify-only --verify-diagnostics %s
// requires(N == 640 || N >= 6400): trip counts 10 and 100 upwards.  Counts from 100 on do not step down by
// periods of 4 to a simulated one (nothing lies between 10 and 100), and the window past 10 holds only 10:
// unproven, never "verified".
target sm_90a;

kernel divtrip<S = 2>(
    A: f32[N, 32] tma(box=[32, 32]) align(16),
    Out: f32[N, 32] align(16))
  requires(N == 640 || N >= 6400)
  grid(1) threads(256)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(128);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  role load = warpgroup(0) {
    elect {
      if load.warp == 0 {
        for t in 0..N / 64 {
          let s = t % S;
          wait empty[s] parity(((t / S) & 1) ^ 1);
          arrive full[s] expect_tx(32 * 32 * 4);
          tma.load a[s] <- A[t * 32, 0] signal(full[s]);
        }
      }
    }
  }
  role math = warpgroup(1) {
    for t in 0..N / 64 {
      let s = t % S;
      wait full[s] parity((t / S) & 1);
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      arrive empty[s];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@25 E0601 {{could not prove the synchronisation protocol for every trip count of 't': requires(...) allows 100 iterations (N = 6400, t = 0, t#2 = 0) and the verifier simulates up to 10; it could not show that every such count is reached from a smaller feasible one in steps of 4 iterations (no fixed decrease of the inputs does it)}}
