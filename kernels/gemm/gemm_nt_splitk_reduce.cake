// gemm_nt_splitk_reduce: the second kernel of the bf16 GEMM library's split-K variants.  A split-K partial
// kernel (gemm_nt_wgmma_splitk.cake, gemm_nt_wgmma_anyk.cake, gemm_nt_wgmma_decode.cake in this folder) leaves
// SPLITS f32 partial products of C in the workspace W[SPLITS, M, N]; this kernel sums them in slice order
// (deterministic: the result does not depend on which partial block finished first) and stores
// C = bf16(sum).
//
//   grid     (cdiv(N, V * RT), M) blocks of RT threads; thread t of block (x, y) sums the V elements
//            W[0 .. SPLITS - 1, y, V * (x * RT + t) +: V] in slice order and stores them to C: V = 2 (N even)
//            reads f32 pairs and stores a bf16 pair, V = 1 (any N) single elements.
//   traffic  SPLITS * M * N * 4 bytes read, M * N * 2 written: 1/K-th of the partial kernel's work per
//            element, a few microseconds where the split pays.
target sm_90a;

kernel gemm_nt_splitk_reduce<SPLITS = 4, RT = 128, V = 2>(
    C: bf16[M, N] align(16),
    W: f32[SPLITS, M, N] align(16))
  requires(N % V == 0, V == 1 || V == 2, SPLITS >= 1, RT % 32 == 0, RT <= 1024)
  grid(cdiv(N, V * RT), M) threads(RT)
{
  let n = V * (i32(block.x) * RT + i32(tid.x));
  let m = i32(block.y);
  if n < N {
    if V == 2 {
      var s0: f32 = 0.0;
      var s1: f32 = 0.0;
      for z in 0..SPLITS unroll {
        let w = W[z, m, n +: 2];
        s0 = s0 + w[0];
        s1 = s1 + w[1];
      }
      C[m, n +: 2] = bf16x2(s0, s1);
    } else {
      var s: f32 = 0.0;
      for z in 0..SPLITS unroll {
        s = s + W[z, m, n];
      }
      C[m, n] = bf16(s);
    }
  }
}
