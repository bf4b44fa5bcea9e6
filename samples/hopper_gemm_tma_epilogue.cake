// hopper_gemm_tma_epilogue: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a (H100 / H200):
// samples/hopper_gemm_persistent.cake (persistent, warp-specialized, 2-CTA cluster, TMA multicast of B)
// with an epilogue through registers -> shared -> TMA store instead of masked st.global stores.
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major.  Any M, N (ragged edges
// included) with K % 8 == 0 and N % 8 == 0 (TMA needs 16-byte row strides for A, B and C).
//
// Schedule: as hopper_gemm_persistent (read its header for the grid, the tile scheduler, the roles, the
// multicast and the full/empty rings), except
//   stages   S = 3 (3 x 48 KB of A + B) so that the staging tile fits: 144 KB + 64 KB = 208 KB of the
//            227 KB a block may use.  (S = 4 leaves 35 KB, less than the 64 KB the two halves need.)
//   epilog   each consumer warpgroup (math instance i) owns rows 64*i +: 64 of the tile:
//              1. its issuing thread (math.thread == 0) retires the previous tile's TMA store's shared reads
//                 (tma.store.wait 0 = cp.async.bulk.wait_group.read 0), then `sync epi` (both warpgroups,
//                 256 threads): the staging tile cs[i] may be overwritten;
//              2. `store cs[i][0, 0] <- bf16(acc)`: stmatrix.x4 (4 8x8 bf16 matrices per instruction, the
//                 wgmma D layout is the mma m16n8 C layout per warp) into the column-blocked staging tile;
//              3. fence.proxy_async (generic-proxy writes -> async-proxy reads), `sync epi`;
//              4. the issuing thread: one tma.store per 64-column block, C[m0 + 64 i, n0 + 64 j] <-
//                 cs[i][:, 64 j +: 64]; tma.store.commit (one bulk group for the BN / 64 stores).
//            The store is asynchronous: the warpgroup starts the next tile at once and only waits for
//            the store's shared reads one tile later.  TMA clips the box at C's edges, so ragged M and N
//            tiles are written correctly.  Before exit the issuing threads wait for their last store.
//   layout   cs: bf16[2][64, BN] swizzle(128B): rows of BN * 2 bytes are wider than the 128-byte span, so
//            the tile is BN / 64 column blocks of [64, 64] (docs/language.md section 15), each one 128B-swizzled
//            TMA box of C.  The swizzle spreads the 8 rows of every stmatrix matrix over all banks (an
//            unswizzled [64, BN] tile puts them BN * 2 bytes apart, on the same banks).
target sm_90a;

kernel hopper_gemm_tma_epilogue<BM = 128, BN = 256, BK = 64, S = 3, GM = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] tma(box=[64, 64], swizzle=128B) align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 2147483647,
           GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 8 == 0, BM == 128, BK * 2 == 128, BN % 64 == 0, BN <= 256, S >= 2, GM >= 1)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(16);
  shared cs: bf16[2][64, BN] swizzle(128B) align(1024);   // epilogue staging: BN / 64 boxes per consumer warpgroup
  barrier epi id(1) threads(256);           // the two consumer warpgroups

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  cluster.sync;

  let rank = i32(cluster.rank);
  let m_pairs = cdiv(M, 2 * BM);
  let n_tiles = cdiv(N, BN);
  let pairs = m_pairs * n_tiles;
  let k_tiles = cdiv(K, BK);
  let first = i32(block.x) / 2;
  let clusters = i32(grid_dim.x) / 2;
  let group = GM * n_tiles;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        var it: i32 = 0;
        for p in first..pairs step clusters {
          let g0 = (p / group) * GM;
          let gm = min(m_pairs - g0, GM);
          let m0 = ((g0 + (p % group) % gm) * 2 + rank) * BM;
          let n0 = ((p % group) / gm) * BN;
          for k in 0..k_tiles {
            let s = it % S;
            wait empty[s] parity(((it / S) & 1) ^ 1);
            arrive full[s] expect_tx((BM + BN) * BK * 2);
            tma.load a[s] <- A[m0, k * BK] signal(full[s]);
            tma.load b[s][rank * (BN / 2) +: BN / 2, :] <- B[n0 + rank * (BN / 2), k * BK] signal(full[s]) multicast(3);
            it += 1;
          }
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16>;
    var it: i32 = 0;
    for p in first..pairs step clusters {
      let g0 = (p / group) * GM;
      let gm = min(m_pairs - g0, GM);
      let m0 = ((g0 + (p % group) % gm) * 2 + rank) * BM;
      let n0 = ((p % group) / gm) * BN;
      acc = 0.0;
      for k in 0..k_tiles {
        let s = it % S;
        wait full[s] parity((it / S) & 1);
        wgmma.fence;
        wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
        wgmma.commit;
        wgmma.wait 1;                      // k-tile it-1's group is done: release its stage in both CTAs
        if k > 0 {
          elect {
            arrive empty[(it - 1) % S] cta(0);
            arrive empty[(it - 1) % S] cta(1);
          }
        }
        it += 1;
      }
      wgmma.wait 0;
      elect {
        arrive empty[(it - 1) % S] cta(0);
        arrive empty[(it - 1) % S] cta(1);
      }
      // Epilogue: accumulator -> shared (stmatrix) -> TMA store.
      if math.thread == 0 {
        tma.store.wait 0;                  // the previous tile's store has read cs[math.index]
      }
      sync epi;
      store cs[math.index][0, 0] <- bf16(acc);
      fence.proxy_async;                   // stmatrix writes (generic proxy) before the TMA read (async proxy)
      sync epi;
      if math.thread == 0 {
        for j in 0..BN / 64 unroll {
          tma.store C[m0 + 64 * math.index, n0 + 64 * j] <- cs[math.index][:, 64 * j +: 64];
        }
        tma.store.commit;
      }
    }
    if math.thread == 0 {
      tma.store.wait 0;                    // the last store has read its source before the block exits
    }
  }

  cluster.sync;
}
