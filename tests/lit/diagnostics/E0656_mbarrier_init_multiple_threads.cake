// RUN: %cakec --verify-only --verify-diagnostics %s
// The init is guarded by 'lane == 0', which holds in one thread of every warp, not in one thread of the CTA.
target sm_90;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {
  mbarrier bar arrivals(128);
  if lane == 0 {
    // expected-error@+2 E0656 {{mbarrier 'bar' is initialised by more than one thread: threads}}
    // expected-note@+1 {{counterexample: tid.x = }}
    mbarrier.init bar;
  }
  syncthreads;
  arrive bar;
  wait bar parity(0);
}
