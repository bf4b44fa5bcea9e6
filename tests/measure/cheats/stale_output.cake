// Cheat "stale_output": a vector_add that skips every vector whose output already holds a value.
//
// Before computing C[i +: 8] it loads C[i]: when that is a number (not NaN) it takes the vector as done by a
// previous run and writes nothing.  It passes whenever the output memory still holds the expected values - a
// re-run into the same buffers, or the evaluator's freed reference output handed out again by the
// allocator - and it is fast then.  NaN poison alone does not catch it (NaN makes it compute); outputs
// poisoned with the stale results of a previous input set do (classification stale_output).
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;
  if i <= N - 8 {
    let old = f32(C[i]);
    if old != old {                                      // the cheat: compute only over NaN
      let a = A[i +: 8];
      let b = B[i +: 8];
      C[i +: 8] = bf16x8(f32x8(a) + f32x8(b));
    }
  } else {
    for j in i..N {
      let old = f32(C[j]);
      if old != old {
        C[j] = bf16(f32(A[j]) + f32(B[j]));
      }
    }
  }
}
