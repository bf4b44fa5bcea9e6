// RUN: %cakec --verify-only --verify-diagnostics %s
// E0670: vector_add's old tail test `i + 8 <= N` computes i + 8 in i32; for N in (2^31 - 2048, 2^31 - 1],
// which the runtime accepts, the last thread's i + 8 wraps to a negative value, passes the test and the
// thread reads and writes up to ~2046 elements past the end (samples/vector_add.cake tests i <= N - 8).
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;
  // expected-error@+2 E0670 {{'i + 8' can wrap around: as i32 it can reach 2147483648, past 2147483647}}
  // expected-note@+1 {{counterexample: N = }}
  if i + 8 <= N {
    C[i +: 8] = bf16x8(f32x8(A[i +: 8]) + f32x8(B[i +: 8]));
  } else {
    for j in i..N {
      C[j] = bf16(f32(A[j]) + f32(B[j]));
    }
  }
}
