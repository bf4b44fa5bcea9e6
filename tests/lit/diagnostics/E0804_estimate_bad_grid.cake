// E0804: a grid that evaluates to no blocks at the shape cannot be timed.
// RUN: %cakec %s --estimate --shape N=0 --no-verify --verify-diagnostics
target sm_80;
kernel k(A: f32[N]) grid(N / 64) threads(64) { // expected-error E0804 {{the grid of kernel 'k' is 0 at this shape}}
  if i32(block.x) * 64 + i32(tid.x) < N { A[i32(block.x) * 64 + i32(tid.x)] = 0.0; }
}
