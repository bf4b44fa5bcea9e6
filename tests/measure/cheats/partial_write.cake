// Cheat "partial_output": samples/vector_add.cake that computes only the first half of C.
//
// C = A + B over bf16[N], as the honest kernel, except that every thread whose vector starts at or past N / 2
// returns before loading anything: C[N/2 rounded up to 8 ..] is never written.  An evaluator that compares
// against a reference written into the same memory, or that samples only the first elements, passes it;
// outputs poisoned with NaN before the run show the unwritten half (classification partial_output).
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;
  if i >= N / 2 {                                        // the cheat: the second half is left as it was
    return;
  }
  if i <= N - 8 {
    let a = A[i +: 8];
    let b = B[i +: 8];
    C[i +: 8] = bf16x8(f32x8(a) + f32x8(b));
  } else {
    for j in i..N {
      C[j] = bf16(f32(A[j]) + f32(B[j]));
    }
  }
}
