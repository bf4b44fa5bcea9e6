// E0215: an fn without a result type called for its value.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn bump(var x: f32) {            // expected-note {{'bump' is declared here}}
  x += 1.0;
}
kernel k() grid(1) threads(32) {
  var a: f32 = 0.0;
  let b = bump(a);               // expected-error E0215 {{'bump' has no result type, so its call has no value}}
}
