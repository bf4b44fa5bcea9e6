// RUN: %cakec --verify-only --verify-diagnostics %s
// Only warp 0 of the producer warpgroup signals the hand-off (`if load.warp == 0`), but the barrier counts the
// whole warpgroup: 128 + 128 declared, 32 + 128 arrive.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  // expected-note@+1 {{declared here with threads(256)}}
  barrier ready id(2) threads(256);
  role load = warps(0..4) {
    if load.warp == 0 {
      // expected-note@+1 {{role 'load': warp 0 (32 threads) reach this arrive}}
      arrive ready;
    }
  }
  role math = warps(4..8) {
    // expected-error@+2 E0640 {{named barrier 'ready' (id 2) waits for 256 threads, but 160 threads re}}
    // expected-note@+1 {{role 'math': warps 4..8 (128 threads) reach this sync}}
    sync ready;
  }
}
