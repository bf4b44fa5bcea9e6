// RUN: %cakec --verify-only --verify-diagnostics %s
// A second init after the syncthreads that published the first one: other warps may already arrive on it.
target sm_90;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(128) {
  mbarrier bar arrivals(128);
  if tid.x == 0 {
    mbarrier.init bar;   // expected-note {{first initialised here}}
  }
  syncthreads;           // expected-note {{the barrier is published by 'syncthreads' here}}
  if tid.x == 0 {
    mbarrier.init bar;   // expected-error E0657 {{mbarrier 'bar' is initialised again after it was published by 'syncthreads'}}
  }
  arrive bar;
  wait bar parity(0);
}
