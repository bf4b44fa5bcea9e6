// RUN: %cakec --verify-only --verify-diagnostics %s
// requires(N == 6400) leaves one trip count, 100, far past the counts the sync analysis enumerates (0..10
// for period 4): the simulation starts at the smallest feasible count, so the consumer's off-by-one parity is
// found in the 100-iteration run.
// Fixed twin: trip_window_single_count_fixed.cake.
target sm_90a;

kernel divtrip<S = 2>(
    A: f32[N, 32] tma(box=[32, 32]) align(16),
    Out: f32[N, 32] align(16))
  requires(N == 6400)
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
      wait full[s] parity(((t / S) & 1) ^ 1);
      let r = i32(math.thread) / 4;
      let c = (i32(math.thread) % 4) * 8;
      Out[t * 32 + r, c +: 8] = a[s][r, c +: 8];
      arrive empty[s];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@38 E0605 {{wait on 'full[0]' with parity 1 waits for phase -1 (the phase before initialisation, which counts as complete), but math then reads 'a[0]' (t = 0), which no completed phase has filled}}
// expected-note@38 {{counterexample: loop 't' runs 100 iterations (N = 6400)}}
// expected-note@38 {{math passes this wait at once (t = 0)}}
// expected-note@41 {{and reads 'a[0]' here (t = 0)}}
