// gemm_nt_wgmma_cluster: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a, one output tile per
// block, blocks in CX x CY clusters that share their operand tiles through TMA multicast: the bf16 GEMM
// library's kernel for mid-size shapes, where one-tile-per-block kernels stream A and B from L2 once per
// block.  kernels/gemm/gemm_nt_wgmma_tile.cake is the same schedule without clusters (read its header for
// the roles, the ring and the pipeline); what the clusters change:
//
//   grid     cdiv(N, BN) x cdiv(M, BM) blocks, each count rounded up to a multiple of the cluster's side;
//            block (x, y) computes C[y*BM +: BM, x*BN +: BN].  A block past C's edge computes a tile of
//            zeros (TMA zero-fills boxes outside A and B) that its masked store drops: it still takes part
//            in its cluster's ring.
//   multicast the CX blocks of a cluster row (same y) need the same A tile: the block at cluster x = cx loads
//            rows cx * BM / CX +: BM / CX of it and multicasts them to the whole row.  The CY blocks of a
//            cluster column (same x) share B the same way, each loading BN / CY rows.  So a block fetches
//            BM / CX + BN / CY rows a k-tile from L2 and receives BM + BN.
//   barriers full[s]  (1 arrival): the local producer's arrive.expect_tx((BM + BN) * BK * 2): the whole tile,
//                     whichever block's copy writes each part.
//            empty[s] (4 arrivals per consumer warpgroup of every block of the cluster): each consumer warp
//                     releases stage s in every block of the cluster, because the producers of its row and
//                     column write into its stage s; no producer refills s before every block that receives
//                     its copies is done with it.
//   init     thread 0 initialises the barriers; cluster.sync publishes them before a peer's multicast or
//            remote arrive can reach them.  A final cluster.sync: no block exits while a peer may still
//            write into its ring or arrive on its barriers.
//   smem     S * (BM + BN) * BK * 2 bytes (128 x 128 x 64, S = 4: 128 KB).
target sm_90a;

kernel gemm_nt_wgmma_cluster<BM = 128, BN = 128, BK = 64, S = 4, CX = 2, CY = 1>(
    A: bf16[M, K] tma(box=[BM / CX, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / CY, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(K % 8 == 0, N % 2 == 0, BM % 64 == 0, BM <= 128, BK * 2 == 128, BN % 16 == 0, BN <= 256,
           S >= 2, CX >= 1, CY >= 1, CX * CY >= 2, CX * CY <= 8, BM % (8 * CX) == 0, BN % (8 * CY) == 0)
  grid(cdiv(cdiv(N, BN), CX) * CX, cdiv(cdiv(M, BM), CY) * CY) threads(128 * (BM / 64) + 32)
  cluster(CX, CY)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4 * (BM / 64) * CX * CY);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  cluster.sync;

  let n0 = i32(block.x) * BN;
  let m0 = i32(block.y) * BM;
  let k_tiles = cdiv(K, BK);
  let cx = i32(cluster.x);
  let cy = i32(cluster.y);
  let row_mask = ((1 << CX) - 1) << (cy * CX);                             // the blocks sharing A
  let column_mask = ((1 << (CX * CY)) - 1) / ((1 << CX) - 1) << cx;        // the blocks sharing B

  role load = warp(2 * (BM / 32)) {
    elect {
      for k in 0..k_tiles {
        let s = k % S;
        wait empty[s] parity(((k / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s][cx * (BM / CX) +: BM / CX, :] <- A[m0 + cx * (BM / CX), k * BK] signal(full[s])
            multicast(row_mask);
        tma.load b[s][cy * (BN / CY) +: BN / CY, :] <- B[n0 + cy * (BN / CY), k * BK] signal(full[s])
            multicast(column_mask);
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
      wgmma.wait 1;                      // k-tile k-1's group is done: release its stage in every block
      if k > 0 {
        elect {
          for r in 0..CX * CY {
            arrive empty[(k - 1) % S] cta(r);
          }
        }
      }
    }
    wgmma.wait 0;
    elect {
      for r in 0..CX * CY {
        arrive empty[(k_tiles - 1) % S] cta(r);   // the last stage too (keeps every phase balanced)
      }
    }
    store C[m0 + 64 * math.index, n0] <- bf16(acc);
  }

  cluster.sync;
}
