// E0345: direct and mutual recursion; the notes walk the cycle.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
fn fact(n: i32) -> i32 {
  return n * fact(n - 1);        // expected-error E0345 {{'fact' calls itself}}
}
fn even(n: i32) -> pred {
  return n == 0 || odd(n - 1);   // expected-note {{'even' calls 'odd' here}}
}
fn odd(n: i32) -> pred {
  return n != 0 && even(n - 1);  // expected-error E0345 {{'even' calls itself through 'odd'}}
}
kernel k(Y: i32[1]) grid(1) threads(32) {
  Y[0] = fact(3);
}
