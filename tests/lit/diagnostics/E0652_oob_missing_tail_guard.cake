// RUN: %cakec --verify-only --verify-diagnostics %s
// One element per thread with a grid of cdiv(N, T) blocks and no tail guard: the last block runs past N.
target sm_80;
kernel k<T = 256>(A: f32[N], B: f32[N]) requires(N >= 1) grid(cdiv(N, T)) threads(T) {
  let i = i32(block.x) * T + i32(tid.x);
  // expected-error@+4 E0652 {{load 'A[i]' may be out of bounds: index 'i' of dimension 0 can reach 32, past 'N' = 32}}
  // expected-note@+3 {{counterexample: N = 32, tid.x = 32, warp = 1, lane = 0, block.x = 0: A[32] is past N = 32}}
  // expected-error@+2 E0652 {{store 'B[i]' may be out of bounds: index 'i' of dimension 0 can reach }}
  // expected-note@+1 {{counterexample: N = 32, tid.x = 32, warp = 1, lane = 0, block.x = 0: B[32] is past N = 32}}
  B[i] = A[i] * 2.0;
}
