// RUN: %cakec --verify-only --verify-diagnostics %s
// Instance 1 of role math would use barrier 2 of a two-barrier array.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  // expected-note@+1 {{declared here with 2 barriers}}
  barrier epi[2] id(1) threads(128);
  role math[2] = warps(0..8) {
    // expected-error@+2 E0668 {{index 2 is out of range for named barrier array 'epi' of 2 barriers}}
    // expected-note@+1 {{warp 4 (role 'math[1]') uses index 2 here}}
    sync epi[math.index + 1];
  }
}
