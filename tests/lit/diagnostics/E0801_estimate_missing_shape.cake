// E0801: --estimate needs a value for every shape variable; without --shape each one is reported at its
// declaration, with a hint listing them all.
// RUN: %cakec %s --estimate --verify-diagnostics
// RUN: %expect-exit 1 %cakec %s --estimate --shape M=64 2>&1 | %FileCheck %s
// CHECK: error: no value for shape variable 'N' of kernel 'k'; --estimate needs --shape [E0801]
// CHECK: hint: give every shape variable a value: --shape M=...,N=...
target sm_80;
kernel k(A: f32[M, N]) requires(M >= 1, N >= 1) grid(M) threads(32) { // expected-error E0801 {{shape variable 'M'}} expected-error E0801 {{shape variable 'N'}}
  if i32(tid.x) < N { A[i32(block.x), i32(tid.x)] = 0.0; }
}
