// RUN: %cakec --verify-only --verify-diagnostics %s
// 'sync epi;' on a named barrier array does not say which instance's barrier is meant.
target sm_80;
kernel k(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  barrier epi[2] id(1) threads(128);
  role math[2] = warps(0..8) {
    // expected-error@+1 E0352 {{named barrier array 'epi' is used without an index}}
    sync epi;
  }
}
