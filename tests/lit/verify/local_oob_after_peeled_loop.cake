// An access after a loop must hold whether or not the loop runs.  With n = N / 32, 'for c in 0..n - 1' runs
// only for N >= 64, and 'Y[n - 1]' after it is Y[-1] for N < 32.  Assumed for the access, the loop variable's
// bounds (c < n - 1) said N >= 64, and the kernel verified.  'after_fixed' guards the store.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;

kernel after_peeled(X: f32[N], Y: f32[N]) grid(1) threads(32) {
  let n = N / 32;
  if tid.x == 0 {
    for c in 0..n - 1 {
      Y[c] = X[c];
    }
    Y[n - 1] = 0.0;
  }
}

kernel after_fixed(X: f32[N], Y: f32[N]) grid(1) threads(32) {
  let n = N / 32;
  if tid.x == 0 {
    for c in 0..n - 1 {
      Y[c] = X[c];
    }
    if n >= 1 {
      Y[n - 1] = 0.0;
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@13 E0652 {{store 'Y[n - 1]' may be out of bounds: index 'n - 1' of dimension 0 can be -1, below 0}}
// expected-note@13 {{counterexample: tid.x = 0, warp = 0, lane = 0, N = 1, c = 0: Y[-1] is before 0}}
