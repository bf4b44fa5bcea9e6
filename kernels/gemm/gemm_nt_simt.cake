// gemm_nt_simt: C = A * B^T (bf16 in, f32 accumulation, bf16 out) on the CUDA cores, for every shape: the
// fallback of the bf16 GEMM library (library_bf16_sm90.json), which serves the shapes the TMA kernels refuse
// (K not a multiple of 8, odd N: TMA needs 16-byte row strides, the wgmma epilogues store bf16 pairs).
// A[M, K], B[N, K], C[M, N] row-major, any M, N, K >= 1, no alignment beyond the element size.
//
// Schedule: one thread per output element.  grid (cdiv(N, BX), cdiv(M, BY)) blocks of BX x BY threads;
// thread t of block (x, y) computes C[y*BY + t / BX, x*BX + t % BX] as a K-long dot product of a row of A and
// a row of B (f32 accumulation).  The BX threads of a row read the same A element (a broadcast) and BX rows
// of B, K-contiguous: uncoalesced, so this path is correct everywhere and fast nowhere; it is the table's
// last resort, not a tuned kernel.
target sm_90;

kernel gemm_nt_simt<BX = 32, BY = 8>(A: bf16[M, K], B: bf16[N, K], C: bf16[M, N])
  requires(BX * BY <= 1024, BX % 32 == 0)
  grid(cdiv(N, BX), cdiv(M, BY)) threads(BX * BY)
{
  let n = i32(block.x) * BX + i32(tid.x) % BX;
  let m = i32(block.y) * BY + i32(tid.x) / BX;
  if m < M && n < N {
    var acc: f32 = 0.0;
    for k in 0..K {
      acc = acc + f32(A[m, k]) * f32(B[n, k]);
    }
    C[m, n] = bf16(acc);
  }
}
