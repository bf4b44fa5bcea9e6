// E0348: a var argument whose type is not the parameter's (storage is aliased, never converted).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn bump(var x: f32) {                // expected-note {{the parameter is declared here}}
  x += 1.0;
}
kernel k() grid(1) threads(32) {
  var h: f16 = 0.0;
  bump(h);                           // expected-error E0348 {{the argument for parameter 'x' of 'bump' has type f16; the parameter is f32}}
}
