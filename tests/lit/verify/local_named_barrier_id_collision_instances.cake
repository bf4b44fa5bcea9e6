// RUN: %cakec --verify-only --verify-diagnostics %s
// The classic two-consumer-warpgroup bug: both instances of math[2] use barrier 3 with threads(128), meaning
// "my warpgroup", but the instances share the hardware barrier.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(384) {
  // expected-note@+1 {{declared here with threads(128)}}
  barrier wg id(3) threads(128);
  role load = warps(0..4) {
  }
  role math[2] = warps(4..12) {
    // expected-error@+2 E0641 {{named barrier 'wg' (id 3) is used by role 'math[0]' and by role 'math[}}
    // expected-note@+1 {{role 'math' (warps 4..12, 256 threads) uses it here}}
    sync wg;
  }
}
