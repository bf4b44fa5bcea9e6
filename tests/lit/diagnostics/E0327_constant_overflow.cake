// E0327: compile-time arithmetic that overflows, and constants that do not fit their type.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 4611686018427387904>(A: f32[M, N], n: i32) grid(16) threads(128) {
  shared a: f32[BM * 4];         // expected-error E0327 {{integer overflow in constant expression: 'BM * 4' does not fit in 64-bit signed arithmetic}}
  let b = n + 3000000000;        // expected-error E0327 {{the constant 3000000000 does not fit in i32}}
}
