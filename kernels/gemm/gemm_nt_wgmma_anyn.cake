// gemm_nt_wgmma_anyn: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a with any N, odd included:
// kernels/gemm/gemm_nt_wgmma_tile.cake (one BM x BN tile per block, TMA ring, wgmma; read its header for the
// grid, the roles, the barriers and the pipeline) with an epilogue through shared memory and element-wise
// stores instead of the accumulator's bf16-pair stores, which need C's rows 4-byte aligned (N even).  The
// bf16 GEMM library's tensor-core path for odd N when K % 8 == 0 (TMA loads A and B: their row strides are
// K * 2 bytes; the N rows of B need no alignment).
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major.  Any M, N with K % 8 == 0.
//
// Epilogue
//   1. each consumer warpgroup stores its 64 x BN accumulator, converted to bf16, into its band of the
//      padded shared tile cs[BM, BN + 8] (rows of BN + 8 elements: consecutive rows start 16 bytes apart
//      modulo 128, so the accumulator's 8-row store pattern spreads over the banks);
//   2. after the roles, `syncthreads` (every warp: the roles have ended, the ring is no longer in use);
//   3. all threads of the block (the producer warp too) write the tile to C one element at a time,
//      consecutive threads on consecutive columns of a row (coalesced 2-byte stores), each masked by
//      row < M and column < N.
//   The tile stays in registers until the main loop is over, so cs is separate from the ring:
//   S * (BM + BN) * BK * 2 + BM * (BN + 8) * 2 bytes (128 x 128 x 64, S = 3: 96 KB + 34 KB).
target sm_90a;

kernel gemm_nt_wgmma_anyn<BM = 128, BN = 128, BK = 64, S = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(K % 8 == 0, BM % 64 == 0, BM <= 128, BK * 2 == 128, BN % 16 == 0, BN <= 256,
           S >= 2)
  grid(cdiv(N, BN), cdiv(M, BM)) threads(128 * (BM / 64) + 32)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4 * (BM / 64));
  shared cs: bf16[BM, BN + 8] align(128);   // the epilogue's tile

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n0 = i32(block.x) * BN;
  let m0 = i32(block.y) * BM;
  let k_tiles = cdiv(K, BK);

  role load = warp(2 * (BM / 32)) {
    elect {
      for k in 0..k_tiles {
        let s = k % S;
        wait empty[s] parity(((k / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s] <- A[m0, k * BK] signal(full[s]);
        tma.load b[s] <- B[n0, k * BK] signal(full[s]);
      }
    }
  }

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;                      // k-tile k-1's group is done: its stage can be refilled
      if k > 0 {
        elect {
          arrive empty[(k - 1) % S];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_tiles - 1) % S];   // release the last stage too (keeps every phase balanced)
    }
    store cs[64 * math.index, 0] <- bf16(acc);
  }

  // every warp, the producer's included: the tile from cs to C, element by element, masked by C's dims
  syncthreads;
  let t = i32(tid.x);
  for v in 0..cdiv(BM * BN, 128 * (BM / 64) + 32) unroll {
    let idx = v * (128 * (BM / 64) + 32) + t;
    let rr = idx / BN;
    let cc = idx % BN;
    if idx < BM * BN {
      let x = cs[rr, cc];                // read unconditionally: the shape decides only the global store
      if rr < M - m0 && cc < N - n0 {
        C[m0 + rr, n0 + cc] = x;
      }
    }
  }
}
