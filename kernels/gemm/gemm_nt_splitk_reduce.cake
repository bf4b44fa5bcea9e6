// gemm_nt_splitk_reduce: the second kernel of the bf16 GEMM library's split-K variants.  A split-K partial
// kernel (gemm_nt_wgmma_splitk.cake, gemm_nt_wgmma_anyk.cake, gemm_nt_wgmma_decode.cake in this folder) leaves
// SPLITS f32 partial products of C in the workspace W[SPLITS, M, N]; this kernel sums them in slice order
// (deterministic: the result does not depend on which partial block finished first) and stores
// C = bf16(sum).  N even (f32 and bf16 pairs).
//
//   grid     (cdiv(N, 2 * RT), M) blocks of RT threads; thread t of block (x, y) sums the SPLITS f32 pairs
//            W[0 .. SPLITS - 1, y, 2 * (x * RT + t) +: 2] in slice order and stores the bf16 pair to C.
//   traffic  SPLITS * M * N * 4 bytes read, M * N * 2 written: 1/K-th of the partial kernel's work per
//            element, a few microseconds where the split pays.
target sm_90a;

kernel gemm_nt_splitk_reduce<SPLITS = 4, RT = 128>(
    C: bf16[M, N] align(16),
    W: f32[SPLITS, M, N] align(16))
  requires(N % 2 == 0, SPLITS >= 1, RT % 32 == 0, RT <= 1024)
  grid(cdiv(N, 2 * RT), M) threads(RT)
{
  let n = 2 * (i32(block.x) * RT + i32(tid.x));
  let m = i32(block.y);
  if n < N {
    var s0: f32 = 0.0;
    var s1: f32 = 0.0;
    for z in 0..SPLITS unroll {
      let w = W[z, m, n +: 2];
      s0 = s0 + w[0];
      s1 = s1 + w[1];
    }
    C[m, n +: 2] = bf16x2(s0, s1);
  }
}
