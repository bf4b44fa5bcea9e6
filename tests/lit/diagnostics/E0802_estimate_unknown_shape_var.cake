// E0802: a --shape name that no kernel of the file has (here a typo of N) is an error, not ignored.
// RUN: %cakec %s --estimate --shape M=64,n=32,N=32 --verify-diagnostics
// RUN: %expect-exit 1 %cakec %s --estimate --shape M=64,n=32,N=32 2>&1 | %FileCheck %s
// CHECK: error: --shape gives 'n', which is not a shape variable of any kernel in this file [E0802]
// expected-error@* E0802 {{--shape gives 'n'}}
target sm_80;
kernel k(A: f32[M, N]) requires(M >= 1, N >= 1, N <= 32) grid(M) threads(32) {
  if i32(tid.x) < N { A[i32(block.x), i32(tid.x)] = 0.0; }
}
