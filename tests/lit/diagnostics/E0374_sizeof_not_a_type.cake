// E0374: sizeof takes one type name (scalar or vector, or a type parameter); pred has no size.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: 10:12: error: sizeof takes a type name: parameter 'X' is not a type [E0374]
// CHECK: hint: write sizeof(TYPE) with a scalar or vector type or a type parameter
target sm_80;
kernel k<T: type = f16>(X: T[N], Out: i32[4]) grid(1) threads(32) {
  let x = X[0];
  Out[0] = sizeof(T) + sizeof(f32x4);
  Out[1] = sizeof(X);          // expected-error E0374 {{parameter 'X' is not a type}}
  Out[2] = sizeof(pred);       // expected-error E0374 {{pred has no size in memory}}
  Out[3] = sizeof(T, T) + sizeof(x + 1);   // expected-error E0374 {{sizeof has one argument}} expected-error E0374 {{'x + 1' is an expression, not a type}}
}
