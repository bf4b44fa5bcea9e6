// A diagnostic inside an inlined fn body points at the body and notes each call site it came through.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
target sm_80;
fn scale(x: f32, k: i32) -> f32 {
  return x * k;
// expected-error@-1 E0304 {{mismatched types}}
// expected-error@-2 E0304 {{mismatched types}}
}
fn twice(x: f32) -> f32 {
  return scale(x, 2);                // expected-note {{'scale' inlined from here}}
}
kernel k(Y: f32[2]) grid(1) threads(32) {
  Y[0] = scale(1.0, 3);              // expected-note {{'scale' inlined from here}}
  Y[1] = twice(1.0);                 // expected-note {{'twice' inlined from here}}
}
// CHECK: 6:10: error: mismatched types
// CHECK: 14:10: note: 'scale' inlined from here
// CHECK: 6:10: error: mismatched types
// CHECK: 11:10: note: 'scale' inlined from here
// CHECK: 15:10: note: 'twice' inlined from here
