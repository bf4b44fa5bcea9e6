// E0803: the estimated shape must satisfy requires(...); the error points at the violated condition.
// RUN: %cakec %s --estimate --shape N=100 --verify-diagnostics
target sm_80;
kernel k(A: f32[N]) requires(N >= 1, N % 64 == 0) grid(N / 64) threads(64) { // expected-error E0803 {{the shape N=100 violates this requirement of kernel 'k'}}
  A[i32(block.x) * 64 + i32(tid.x)] = 0.0;
}
