// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: hint: phase 0 of 'empty[0]' met arrivals(128); in phase 1 math arrives 4 thread(s) short: a path of math skips its arrive
// The consumer's threads of row 31 stop releasing stages from tile 2 on (`if r < 31 || t < 2` around the
// arrive): phase 1 of 'empty[0]' gets 124 of its 128 arrivals and the producer waits forever.  Phase 0 had
// all 128, so the count is right and the hint points at the path that skips the arrive.
// Fixed twin: arrival_skipped_on_one_path_fixed.cake.
target sm_90a;

kernel divtrip<S = 2>(
    A: f32[N, 32] tma(box=[32, 32]) align(16),
    Out: f32[N, 32] align(16))
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
      if r < 31 || t < 2 {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@17 E0603 {{mbarrier 'empty[0]' phase 1 receives 124 arrivals, but it is declared with arrivals(128)}}
// expected-note@17 {{counterexample: loop 't' runs 3 iterations (N = 192)}}
// expected-note@44 {{math arrives here (t = 2) (124 threads per execution)}}
// expected-note@17 {{declared here with arrivals(128)}}
// expected-note@17 {{the kernel ends with this phase incomplete}}
// expected-note@44 {{math arrives here for phase 0 (t = 0) with 128 thread(s), for phase 1 with 124}}
// expected-error@29 E0611 {{deadlock: load waits forever on 'empty[0]' for phase 1 (t = 4): it has completed 1 phase, and the current one has 124 of 128 arrivals}}
// expected-note@29 {{counterexample: loop 't' runs 5 iterations (N = 320)}}
// expected-note@39 {{math waits forever on 'full[0]' for phase 2 (t = 4): it has completed 2 phases, and the current one has 0 of 1 arrivals}}
// expected-note@17 {{'empty[0]' is declared here with arrivals(128)}}
