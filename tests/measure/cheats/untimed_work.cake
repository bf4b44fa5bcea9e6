// Cheat "untimed_work": the work runs where the timer does not look.
//
// vector_add, the kernel the evaluator launches and times on its stream, does nothing.  vector_add_work
// computes C = A + B (the honest kernel's body); the candidate's host part launches it on a side stream of
// its own, after the evaluator's stream reached the launch point (so the inputs and the poisoned outputs are
// ready) but without making the evaluator's stream wait for it.  Events on the evaluator's stream see an
// empty kernel; the outputs are right after a device-wide synchronization.  Caught by reading the outputs in
// the timed stream's order at the end of the timed region, by the work still pending there (device: the time a
// device-wide synchronization takes after the end event completed) and by the launch plan itself naming a
// stream other than the timed one (classification untimed_work).
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(1) threads(32)
{
}

kernel vector_add_work<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;
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
