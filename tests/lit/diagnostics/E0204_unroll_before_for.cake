// E0204 for `unroll for`: the keyword comes after the range, and the hint says so.
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: E0204_unroll_before_for.cake:8:3: error: expected a statement, found 'unroll' [E0204]
// CHECK: hint: 'unroll' follows the range: 'for i in 0..N unroll { ... }'
target sm_90a;
kernel k(X: f32[4]) threads(32) {
  var s: f32 = 0.0;
  unroll for i in 0..4 {
    s = s + X[i];
  }
}
