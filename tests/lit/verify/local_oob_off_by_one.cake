// RUN: %cakec --verify-only --verify-diagnostics %s
// Off-by-one guards: `i <= N` lets i = N through, the vector tail check forgets the slice length, and the
// stencil reads A[i - 1] at i = 0.  (A is 16-byte aligned for its vector load and N <= 2^29 - 512 keeps
// i * 4 in i32: only the guards are wrong.)
target sm_80;
kernel k<T = 256>(A: f32[N] align(16), B: f32[N]) requires(N >= 1, N <= 536870400) grid(cdiv(N, T)) threads(T) {
  let i = i32(block.x) * T + i32(tid.x);
  if i <= N {
    // expected-error@+4 E0652 {{load 'A[i - 1]' may be out of bounds: index 'i - 1' of dimension 0 can}}
    // expected-note@+3 {{counterexample: N = 1, tid.x = 0, warp = 0, lane = 0, block.x = 0: A[-1] is before 0}}
    // expected-error@+2 E0652 {{store 'B[i]' may be out of bounds: index 'i' of dimension 0 can reach }}
    // expected-note@+1 {{counterexample: N = 536870368, tid.x = 224, warp = 7, lane = 0, block.x = 2097149: B[536870368] is past N = 536870368}}
    B[i] = A[i - 1];
  }
  let v = i * 4;
  if v < N {
    // expected-error@+2 E0652 {{load 'A[v +: 4]' may be out of bounds: index 'v' +: 4 of dimension 0 c}}
    // expected-note@+1 {{counterexample: N = 1, tid.x = 0, warp = 0, lane = 0, block.x = 0: A[3] is past N = 1}}
    let x = A[v +: 4];
    B[v] = x[0];
  }
}
