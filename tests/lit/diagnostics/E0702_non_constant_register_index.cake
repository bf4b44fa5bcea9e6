// E0702: register arrays cannot be indexed at run time; the hint says to unroll the loop.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
// RUN: %expect-exit 1 %cakec --no-verify %s --emit=ptx -o %t.ptx 2>&1 | %FileCheck %s
// CHECK: hint: mark the loop that computes this index 'unroll'
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  var acc: f32[4];
  for i in 0..4 {
    acc[i] = X[i];   // expected-error E0702 {{index into register array 'acc' is not a compile-time constant}}
  }
  for i in 0..4 unroll {
    acc[i] = X[i];   // fine: i is a constant in each unrolled copy
  }
}
