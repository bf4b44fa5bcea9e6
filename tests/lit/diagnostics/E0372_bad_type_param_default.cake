// E0372: a type parameter's default names a scalar type or an earlier type parameter.  Uses of a type
// parameter in error are not reported again.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: 10:23: error: the default of type parameter 'T' must be a scalar type: 'bf17' is not a type [E0372]
// CHECK: hint: did you mean 'bf16'?
target sm_80;
kernel vec<V: type = f32x4>(X: V[N]) grid(1) threads(32) {   // expected-error E0372 {{'f32x4' is a vector type}}
}
kernel typo<T: type = bf17, U: type = T>(X: T[N], Y: U[N]) grid(1) threads(32) {   // expected-error E0372 {{'bf17' is not a type}}
  let x: T = T(1.0);
  Y[0] = U(x);
}
kernel int_default<BM = 64, T: type = BM>(X: T[N]) grid(1) threads(32) {   // expected-error E0372 {{'BM' is an integer compile-time parameter}}
}
