// E0346: a call with the wrong number of arguments.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn sqdist(a: f32, b: f32) -> f32 {   // expected-note {{'sqdist' is declared here}}
  let d = a - b;
  return d * d;
}
kernel k(Y: f32[1]) grid(1) threads(32) {
  Y[0] = sqdist(1.0);                // expected-error E0346 {{'sqdist' takes 2 arguments, but 1 was given}}
}
