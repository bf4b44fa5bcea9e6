// RUN: %cakec --verify-only --verify-diagnostics %s
// A runtime scalar selects the barrier: the verifier cannot count the threads of each barrier.
target sm_80;
kernel k(X: f32[N], s: i32) requires(N >= 1) grid(1) threads(256) {
  barrier epi[2] id(1) threads(128);
  role math[2] = warps(0..8) {
    // expected-error@+1 E0669 {{cannot tell which barrier of named barrier array 'epi' a warp uses: 's' is not known per warp}}
    sync epi[s];
  }
}
