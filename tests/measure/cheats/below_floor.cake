// Cheat "below_floor": a correct vector_add (16 elements per thread, two 16-byte vectors of each operand)
// whose record claims a time no memory system can give.
//
// The kernel's outputs are right on every shape; the cheat is the time it comes with (the suite's
// claimed_ms: a figure from a timer that saw a warm L2, a side stream or no synchronization).  C = A + B over
// bf16[N] must read 4 N bytes and write 2 N bytes; the claim is faster than those bytes can move at the
// machine's peak bandwidth (machines/h200.json), so the figure is rejected whatever produced it
// (classification below_floor).  The same rule applies to every time the service measures itself.
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 16)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 16;
  if i <= N - 16 {
    let a0 = A[i +: 8];
    let a1 = A[i + 8 +: 8];
    let b0 = B[i +: 8];
    let b1 = B[i + 8 +: 8];
    C[i +: 8] = bf16x8(f32x8(a0) + f32x8(b0));
    C[i + 8 +: 8] = bf16x8(f32x8(a1) + f32x8(b1));
  } else {
    for j in i..N {
      C[j] = bf16(f32(A[j]) + f32(B[j]));
    }
  }
}
