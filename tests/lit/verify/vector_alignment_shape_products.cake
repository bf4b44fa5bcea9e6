// RUN: %cakec --verify-only --verify-diagnostics %s
// Vector alignment over pitches that are products of shape variables: the row pitch of a 3-d tensor
// W[S, M, N] is N and its plane pitch M * N, so the byte offset of W[z, m, n +: 2] is 4 (z M N + m N + n).
// requires(N % 2 == 0) makes every term a multiple of 8 by the powers of two its factors carry, proven without
// a solver query (the solver's non-linear arithmetic ran past its limit here: E0602 after ~18 s per access).
// Without the requirement the access is refuted with a counterexample.
target sm_90a;

kernel sum_planes(C: f32[M, N] align(16), W: f32[4, M, N] align(16))
  requires(N % 2 == 0)
  grid(cdiv(N, 256), M) threads(128)
{
  let n = 2 * (i32(block.x) * 128 + i32(tid.x));
  let m = i32(block.y);
  if n < N {
    var s0: f32 = 0.0;
    var s1: f32 = 0.0;
    for z in 0..4 unroll {
      let w = W[z, m, n +: 2];
      s0 = s0 + w[0];
      s1 = s1 + w[1];
    }
    C[m, n +: 2] = f32x2(s0, s1);
  }
}

kernel odd_rows(W: f32[4, M, N] align(16), D: f32[M, N] align(16))
  requires(N >= 2)
  grid(M) threads(32)
{
  let m = i32(block.x);
  // expected-error@+2 E0671 {{load 'W[3, m, 0 +: 2]' may be misaligned: its byte offset from the base can be}}
  // expected-note@+1 {{counterexample: }}
  let w = W[3, m, 0 +: 2];
  if tid.x == 0 {
    D[m, 0] = w[0] + w[1];
  }
}
