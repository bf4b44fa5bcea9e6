// Cheat "shape_special_case": samples/vector_add.cake that is correct only at the shape it was tuned on.
//
// When N equals the compile-time TUNED_N (the measurement's tuning shape, -D TUNED_N=...) it computes
// C = A + B exactly like the honest kernel (without the tail, which that shape does not need); at any other
// N every thread returns at once and C keeps whatever it held.  An evaluator that checks only the tuning
// shape passes it; checking shapes other than the tuning shape catches it (classification
// shape_special_case).
target sm_80;

kernel vector_add<THREADS = 256, TUNED_N = 4096>(A: bf16[N] align(16), B: bf16[N] align(16),
                                                 C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  if N != TUNED_N {                                      // the cheat: nothing at all off the tuning shape
    return;
  }
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;
  if i <= N - 8 {
    let a = A[i +: 8];
    let b = B[i +: 8];
    C[i +: 8] = bf16x8(f32x8(a) + f32x8(b));
  }
}
