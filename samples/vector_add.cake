// vector_add: C = A + B elementwise over bf16 vectors of length N (any N >= 1).
//
// Schedule
//   grid    cdiv(N, THREADS * 8) blocks of THREADS threads; one thread owns one 8-element vector.
//   memory  thread t of block b reads A[i +: 8] and B[i +: 8] with i = (b * THREADS + t) * 8: one 16-byte
//           ld.global.v4 each (bf16x8), so a warp reads 512 contiguous bytes (fully coalesced, 4 sectors per
//           128-byte line), adds in f32 (exact conversion from bf16, one rounding back) and writes C[i +: 8]
//           with one 16-byte store.  align(16) on the params makes every vector 16-byte aligned (i is a
//           multiple of 8 elements = 16 bytes).
//   tail    when N is not a multiple of 8 the last thread whose vector straddles N falls back to scalar
//           loads/stores for elements i..N-1; threads whose vector starts at or past N do nothing.  The
//           test is i <= N - 8, not i + 8 <= N: i32 arithmetic wraps, and for N in (2^31 - 2048, 2^31 - 1]
//           the last thread's i + 8 would pass 2^31 and the test with it (the verifier proves no wrap).
//   cost    purely memory bound: 6 bytes moved per element; no shared memory, no synchronization.
target sm_80;

kernel vector_add<THREADS = 256>(A: bf16[N] align(16), B: bf16[N] align(16), C: bf16[N] align(16))
  requires(N >= 1)
  grid(cdiv(N, THREADS * 8)) threads(THREADS)
{
  let i = (i32(block.x) * THREADS + i32(tid.x)) * 8;   // first element of this thread's vector
  if i <= N - 8 {                                        // i + 8 <= N would wrap in i32 for N near 2^31
    let a = A[i +: 8];                                   // bf16x8, 16-byte vector load
    let b = B[i +: 8];
    let sum = f32x8(a) + f32x8(b);                       // widen, add in f32
    C[i +: 8] = bf16x8(sum);                             // round once, 16-byte vector store
  } else {
    for j in i..N {                                      // masked tail: at most 7 scalar elements
      C[j] = bf16(f32(A[j]) + f32(B[j]));
    }
  }
}
