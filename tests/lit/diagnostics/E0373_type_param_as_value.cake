// E0373: a type parameter names a type; as a value it is an error with a note at its declaration.
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %expect-exit 1 %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: 9:10: error: type parameter 'T' is a type, not a value [E0373]
// CHECK: 8:10: note: type parameter 'T' is declared here
// CHECK: hint: convert a value with T(x), or take the size in bytes with sizeof(T)
target sm_80;
kernel k<T: type = f16, BM = (T * 2)>(X: T[N]) grid(1) threads(32) {   // expected-error E0373 {{type parameter 'T' is a type, not a value}}
  X[0] = T;   // expected-error E0373 {{type parameter 'T' is a type, not a value}}
  // expected-note@-2 {{type parameter 'T' is declared here}}
  // expected-note@-3 {{type parameter 'T' is declared here}}
}
