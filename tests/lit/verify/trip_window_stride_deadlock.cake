// RUN: %cakec --verify-only --verify-diagnostics %s
// After its loop the consumer waits once more on 'full[0]' when the trip count is a multiple of 4: a phase
// nobody completes.  requires(N % 384 == 0) makes the trip counts 0, 6, 12, ...: the first count with the
// deadlock is 12, past the window of period 4 (0..10), so the window grows to each residue class's first
// count and the 12-iteration run shows it.
// Fixed twin: trip_window_stride.cake.
target sm_90a;

kernel divtrip<S = 2>(
    A: f32[N, 32] tma(box=[32, 32]) align(16),
    Out: f32[N, 32] align(16))
  requires(N % 384 == 0)
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
    if N / 64 % 4 == 0 {
      wait full[0] parity(0);
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@46 E0611 {{deadlock: math waits forever on 'full[0]' for phase 6: it has completed 6 phases, and the current one has 0 of 1 arrivals}}
// expected-note@46 {{counterexample: loop 't' runs 12 iterations (N = 768)}}
// expected-note@31 {{load has finished; its last synchronisation is here (t = 11)}}
// expected-note@16 {{'full[0]' is declared here with arrivals(1)}}
