// RUN: %cakec --verify-only --verify-diagnostics %s
// Producer/consumer hand-off over a named barrier whose thread count forgets that the consumer role has only
// two warps: the barrier waits for 256 threads but 192 arrive, so it never completes.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  // expected-note@+1 {{declared here with threads(256)}}
  barrier epi id(1) threads(256);
  role producer = warps(0..4) {
    // expected-note@+1 {{role 'producer': warps 0..4 (128 threads) reach this arrive}}
    arrive epi;
  }
  role consumer = warps(4..6) {
    // expected-error@+2 E0640 {{named barrier 'epi' (id 1) waits for 256 threads, but 192 threads reac}}
    // expected-note@+1 {{role 'consumer': warps 4..6 (64 threads) reach this sync}}
    sync epi;
  }
}
