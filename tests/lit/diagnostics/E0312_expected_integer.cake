// E0312: indices, loop bounds and dimensions must be integers.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let v = A[x, 0];               // expected-error E0312 {{an index must be an integer, found f32}}
  for i in 0..x { }              // expected-error E0312 {{a loop bound must be an integer, found f32}}
  let c = cdiv(1.5, 2);          // expected-error E0331 {{operator 'cdiv' cannot be applied to float constant}}
}
