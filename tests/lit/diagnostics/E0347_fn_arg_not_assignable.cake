// E0347: a var parameter given an expression (no storage to update), found when the call is inlined.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn bump(var x: f32) {                // expected-note {{the parameter is declared here}}
  x += 1.0;
}
kernel k() grid(1) threads(32) {
  var a: f32 = 0.0;
  bump(a + 1.0);                     // expected-error E0347 {{the argument for var parameter 'x' of 'bump' must be a var local or an element of one}}
}
