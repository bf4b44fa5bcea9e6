// E0908: no input and no --shape gives N.
// RUN: %expect-exit 1 %cakec run %s 2>&1 | %FileCheck %s
// CHECK: E0908_interp_missing_shape.cake:7:17: error: no value for shape variable 'N' [E0908]
// CHECK: hint: give it with --shape N=VALUE
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
