// E0214: returns an inlined body cannot honour: not last, missing, with or without a value wrongly.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn early(x: f32) -> f32 {
  if x > 0.0 {
    return x;                    // expected-error E0214 {{'return' must be the last statement of 'early'}}
  }
  return 0.0;
}
fn none(x: f32) -> f32 {         // expected-error E0214 {{'none' has a result type but does not end with 'return EXPR;'}}
  let y = x;
}
// expected-note@-3 {{the result type is declared here}}
fn novalue(var x: f32) {
  x = 1.0;
  return x;                      // expected-error E0214 {{'novalue' has no result type}}
}
fn ends(var x: f32) {
  return;                        // expected-error E0214 {{'return;' in an fn would end the thread}}
}
kernel k() grid(1) threads(32) {
}
