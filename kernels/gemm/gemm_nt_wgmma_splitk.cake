// gemm_nt_wgmma_splitk: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a with K split across
// blocks: the bf16 GEMM library's split-K partial kernel for K-heavy shapes with few output tiles (256 x 256 x
// 131072 has 4 tiles of 128 x 128: one tile per block leaves 128 of 132 SMs idle for the whole long K loop).
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), W[SPLITS, M, N] an f32 workspace (the library
// allocates it for the call).  Any M, N (ragged edges) with K % 8 == 0 (TMA needs 16-byte row strides) and
// N even (f32 pairs).  The library launches kernels/gemm/gemm_nt_splitk_reduce.cake after it on the same
// stream: it sums the SPLITS slices into C.
//
// gemm_nt_wgmma_splitk_partial
//   grid     (cdiv(N, BN), cdiv(M, BM), SPLITS) blocks of 128 * (BM / 64) + 32 threads; block (x, y, z)
//            computes the partial product of tile (y, x) over k-tiles [z * KT / SPLITS, (z + 1) * KT / SPLITS)
//            (KT = cdiv(K, BK) k-tiles; requires KT >= SPLITS, so no slice is empty) and stores it, in f32,
//            to W[z, y*BM +: BM, x*BN +: BN] with plain stores: no atomics, no zero-filled workspace, and the
//            reduce adds the slices in one fixed order (the result does not depend on block timing).
//   roles    as gemm_nt_wgmma_tile.cake: math[BM / 64] warpgroups with wgmma m64nBNk16 into a 64 x BN f32
//            accumulator each; one load warp whose elected lane issues the TMA copies of A [BM, BK] and
//            B [BN, BK] per k-tile into an S-stage ring; full[s] (1 arrival + tx bytes), empty[s] (an elected
//            lane of every consumer warp once the wgmma group that read stage s retired).
//   edges    TMA zero-fills box elements outside A and B; the store is masked by W's last two dims.
target sm_90a;

kernel gemm_nt_wgmma_splitk_partial<BM = 128, BN = 128, BK = 64, S = 4, SPLITS = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    W: f32[SPLITS, M, N] align(16))
  requires(K % 8 == 0, N % 2 == 0, cdiv(K, BK) >= SPLITS, BM % 64 == 0, BM <= 256, BK * 2 == 128,
           BN % 16 == 0, BN <= 256, S >= 2, SPLITS >= 1)
  grid(cdiv(N, BN), cdiv(M, BM), SPLITS) threads(128 * (BM / 64) + 32)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4 * (BM / 64));

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n0 = i32(block.x) * BN;
  let m0 = i32(block.y) * BM;
  let z = i32(block.z);
  let k_tiles = cdiv(K, BK);
  let k_first = z * k_tiles / SPLITS;                  // this block's slice of the k-tiles
  let k_count = (z + 1) * k_tiles / SPLITS - k_first;  // >= 1: k_tiles >= SPLITS

  role load = warp(2 * (BM / 32)) {
    elect {
      for j in 0..k_count {
        let s = j % S;
        wait empty[s] parity(((j / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s] <- A[m0, (k_first + j) * BK] signal(full[s]);
        tma.load b[s] <- B[n0, (k_first + j) * BK] signal(full[s]);
      }
    }
  }

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for j in 0..k_count {
      let s = j % S;
      wait full[s] parity((j / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;                      // the previous k-tile's group is done: its stage can be refilled
      if j > 0 {
        elect {
          arrive empty[(j - 1) % S];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_count - 1) % S];   // release the last stage too (keeps every phase balanced)
    }
    store W[z, m0 + 64 * math.index, n0] <- acc;
  }
}
