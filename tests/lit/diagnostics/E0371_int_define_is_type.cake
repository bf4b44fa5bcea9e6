// E0371: -D NAME=TYPE for an integer compile-time parameter, reported at the parameter with a hint.
// RUN: %cakec --verify-only --verify-diagnostics -D BM=f16 %s
// RUN: %expect-exit 1 %cakec --verify-only -D BM=f16 %s 2>&1 | %FileCheck %s
// CHECK: 8:10: error: -D BM=f16: 'BM' is an integer compile-time parameter of kernel 'k' [E0371]
// CHECK: hint: give an integer, e.g. -D BM=128, or declare 'BM: type = f16' to make it a type parameter
// RUN: %cakec --verify-only -D BM=f16 -D BM=64 %s
target sm_80;
kernel k<BM = 32>(X: f32[N]) grid(N / BM) threads(32) {   // expected-error E0371 {{-D BM=f16: 'BM' is an integer compile-time parameter of kernel 'k'}}
}
