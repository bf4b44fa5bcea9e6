// E0349: unroll(N) with N not a positive constant in 1..64.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k(X: f32[N], n: i32) grid(1) threads(32) {
  var s: f32 = 0.0;
  for i in 0..4 unroll(0) {          // expected-error E0349 {{unroll factor 0 is outside 1..64}}
    s += 1.0;
  }
  for i in 0..4 unroll(n) {          // expected-error E0349 {{unroll factor is not a compile-time constant}}
    s += 1.0;
  }
  for i in 0..4 unroll(1.5) {        // expected-error E0349 {{unroll factor must be an integer}}
    s += 1.0;
  }
  for i in 0..N step n unroll(2) {   // expected-error E0349 {{unroll factor needs a compile-time constant step}}
    s += 1.0;                        // expected-note@-1 {{this step is computed at run time}}
  }
}
