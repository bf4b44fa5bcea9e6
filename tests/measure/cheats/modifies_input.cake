// Cheat "input_modified": a vector_add that copies A into C and zeroes its input B.
//
// It reads 2 bytes per element instead of 4 and writes 4 instead of 2 - but its point is the zeroed B: an
// evaluator that runs the reference after the candidate on the same tensors computes A + 0 = A and finds C
// "correct".  Inputs compared with copies taken before the run (and a reference computed on those copies)
// catch it (classification input_modified).
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;
  if i <= N - 8 {
    let a = A[i +: 8];
    C[i +: 8] = a;                                       // no addition at all
    B[i +: 8] = bf16x8(f32x8(a) * 0.0);                  // the cheat: B := 0, so a later reference agrees
  } else {
    for j in i..N {
      C[j] = A[j];
      B[j] = bf16(0.0);
    }
  }
}
