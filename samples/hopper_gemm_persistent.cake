// hopper_gemm_persistent: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a (H100 / H200):
// a persistent, warp-specialized GEMM with a 2-CTA cluster and TMA multicast of B.
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major.  Any M, N (ragged edges
// included) with K % 8 == 0 (TMA needs 16-byte row strides) and N even (4-byte bf16-pair stores).
//
// Schedule
//   grid     num_sms / 2 * 2 persistent blocks of 384 threads in clusters of 2 (cluster(2)).  The output is
//            cut into BM x BN tiles; a cluster owns a *pair* of vertically adjacent tiles (rows 2*BM) with the
//            same columns: CTA rank r computes the tile at rows (2p + r) * BM.  Cluster c walks the pair
//            indices c, c + clusters, c + 2*clusters, ... (the tile scheduler loop), so every SM keeps
//            working until the last wave, with no relaunch.  Pair index -> (m pair, n tile) is grouped:
//            GM consecutive m pairs sweep the n tiles together, so the A and B panels in use at any time
//            stay in L2.
//   roles    load = warpgroup 0, regs(40): one elected thread issues all TMA copies; math[2] = warpgroups
//            1..2, regs(232): instance i computes rows 64*i +: 64 of the tile into a 64 x BN f32 wgmma
//            accumulator (BN / 2 = 128 registers per thread).  128*40 + 256*232 = 64512 <= 64K registers.
//   multicast the two CTAs of a cluster need the same B tile: CTA r loads B rows n0 + r*BN/2 +: BN/2 and
//            multicasts them (mask 0b11) into stage s of *both* CTAs, so each CTA fetches half of B from
//            L2 and receives the whole tile.  A tiles are per CTA (no multicast).
//   barriers full[s]  (1 arrival): the local producer's arrive.expect_tx((BM + BN) * BK * 2) - its own A tile
//                     plus both B halves (one of them written and signalled by the peer's multicast).
//            empty[s] (16 arrivals): every consumer warp of *both* CTAs releases stage s in both CTAs
//                     (arrive .. cta(0) and cta(1)), because the peer's producer writes its B half into our
//                     stage s and ours into the peer's: neither may refill s until both CTAs are done with it.
//            k-tile number `it` (counted across tiles, so the ring's phase continues from tile to tile)
//            uses stage s = it % S; full waits parity (it / S) & 1, empty waits the opposite parity (the
//            first round passes at once on a fresh barrier).
//   pipeline consumers keep one wgmma group in flight (wgmma.wait 1) and release the previous k-tile's
//            stage; at the end of a tile they drain (wgmma.wait 0), release the last stage, then store.
//            The producer runs up to S k-tiles ahead, also across tile boundaries (it prefetches the next
//            tile while the consumers run the epilogue).
//   init     thread 0 initialises the 2*S barriers and fences the init for the async proxy and the cluster;
//            cluster.sync publishes it to both CTAs before any multicast or remote arrive can reach them.
//   exit     a final cluster.sync: no CTA exits while its peer may still arrive on its barriers.
//   epilog   each consumer warpgroup converts its accumulator to bf16 and stores it at the wgmma lane
//            layout; the store is masked by C's dims, and TMA zero-fills out-of-range A/B boxes, so ragged
//            M, N and K tails are correct (a K tail multiplies zeros).
target sm_90a;

kernel hopper_gemm_persistent<BM = 128, BN = 256, BK = 64, S = 4, GM = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 2147483647,
           GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 2 == 0, BM == 128, BK * 2 == 128, BN % 16 == 0, S >= 2, GM >= 1)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(16);

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
      store C[m0 + 64 * math.index, n0] <- bf16(acc);
    }
  }

  cluster.sync;
}
