// kmeans_assign: the k-means assignment step, fused distance + argmin, for sm_90a (H100 / H200):
//   L[i] = argmin_c ||X[i] - C[c]||^2 (ties: the smallest c),  MinD[i] = ||C[L[i]]||^2 - 2 X[i] . C[L[i]].
// X[N, D] bf16 points, C[K, D] bf16 centroids, CN[K] f32 = ||C[c]||^2 (computed by the caller in f32),
// L[N] i32, MinD[N] f32 (the partial distance that the argmin minimises: ||x||^2 is the same for every
// centroid of a row, so it is left out; add it for the squared distance).  D == HD (a compile-time head
// dim, a multiple of 64); any N (TMA zero fill, masked stores) and any K (columns past K are +inf).
//
// Schedule
//   grid     cdiv(N, BM) blocks of 384 threads, one per BM = 128 rows of X.  The block keeps its X tile
//            resident in shared memory ([BM, HD] as HD / 64 column blocks of [BM, 64], one 128-byte swizzle
//            span wide each) and streams the centroids through an S-stage ring of [BN, HD] tiles.
//   roles    load = warpgroup 0, regs(40): one elected thread loads the X tile once (signal xfull) and then
//            every centroid tile t = 0 .. cdiv(K, BN) - 1 into stage t % S; math[2] = warpgroups 1..2,
//            regs(232): instance i owns rows 64*i +: 64 of the block.  For each centroid tile it computes
//            S = X C^T (64 x BN f32 wgmma accumulator, HD / 64 wgmmas of K = 64 each), releases the stage,
//            and folds the tile into its running per-row state.
//   barriers xfull (1 arrival, expect_tx BM * HD * 2): the X tile has landed (waited once, parity 0).
//            full[s] (1 arrival, expect_tx BN * HD * 2) / empty[s] (8 arrivals: every consumer warp);
//            centroid tile t uses stage s = t % S, full parity (t / S) & 1, empty the opposite parity.
//   pipeline the producer runs up to S centroid tiles ahead; the consumers wait for their wgmma group
//            (wgmma.wait 0) before the epilogue of each tile (the argmin needs the whole tile).
//   epilog   per centroid tile, in registers (no shared-memory round trip of accumulator elements):
//              dist = select(c0 + acc.col < K, CN[c0 + acc.col] - 2 acc, inf)
//              rowargmin v, j <- dist              (per-row min and its column; ties: smallest column)
//              better = v < best                   (strict: an earlier tile keeps a tie)
//              bidx = select(better, c0 + j, bidx); best = select(better, v, best)
//            best / bidx are frag<wgmma_row, ..., 64> row vectors (one value per row, held by the lanes that
//            own the row).  After the last tile: store L[r0] <- bidx and MinD[r0] <- best (masked by N).
//   split    -D SPLIT=1 (for few rows: twice the blocks): BM = 64 rows per block, both consumers own them and
//            split the centroid tiles (math i takes t = i, i + 2, ...; each stage is released by the 4 warps
//            of its consumer).  The two running (min, index) pairs of a row are then merged across the
//            consumers through shared memory (argmin_across: each stores its row vectors, one named
//            barrier, consumer 0 reads the other's at its rows' .row and keeps the smaller distance, the
//            smaller index on a tie) and consumer 0 stores the result.
target sm_90a;

// Merges the running per-row argmin of the two consumer warpgroups of a block that own the same 64 rows:
// consumer 1 publishes its pair, consumer 0 takes the other's where it is smaller (or equal with a smaller
// index).  Both consumers call it (the barrier counts both); only consumer 0's result is the block's.
fn argmin_across(var best: frag<wgmma_row, f32, 64>, var bidx: frag<wgmma_row, i32, 64>, shared xv: f32[64],
                 shared xi: i32[64], me: i32) {
  if me == 1 {
    store xv[0] <- best;
    store xi[0] <- bidx;
  }
  sync xch;
  if me == 0 {
    let ov = xv[best.row];
    let oi = xi[best.row];
    let take = ov < best || (ov == best && oi < bidx);
    best = select(take, ov, best);
    bidx = select(take, oi, bidx);
  }
}

kernel kmeans_assign<SPLIT = 0, BM = (128 / (1 + SPLIT)), BN = 128, HD = 128, S = 4>(
    X: bf16[N, D] tma(box=[BM, 64], swizzle=128B) align(16),
    C: bf16[K, D] tma(box=[BN, 64], swizzle=128B) align(16),
    CN: f32[K] align(16),
    L: i32[N] align(16),
    MinD: f32[N] align(16))
  requires(D == HD, HD % 64 == 0, HD <= 256, SPLIT == 0 || SPLIT == 1, BM == 128 / (1 + SPLIT), BN % 16 == 0,
           BN <= 256, S >= 2)
  grid(cdiv(N, BM)) threads(384)
{
  shared xs: bf16[HD / 64][BM, 64] swizzle(128B) align(1024);
  shared cs: bf16[S * (HD / 64)][BN, 64] swizzle(128B) align(1024);
  mbarrier xfull[1] arrivals(1);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8 / (1 + SPLIT));
  shared xv: f32[64];                        // SPLIT: consumer 1's per-row minimum and index
  shared xi: i32[64];
  barrier xch id(1) threads(256);            // SPLIT: the two consumers meet to merge

  if tid.x == 0 {
    mbarrier.init xfull;
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let r0 = i32(block.x) * BM;
  let c_tiles = cdiv(K, BN);

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        arrive xfull[0] expect_tx(BM * HD * 2);
        for kb in 0..HD / 64 unroll {
          tma.load xs[kb] <- X[r0, kb * 64] signal(xfull[0]);
        }
        for t in 0..c_tiles {
          let s = t % S;
          wait empty[s] parity(((t / S) & 1) ^ 1);
          arrive full[s] expect_tx(BN * HD * 2);
          for kb in 0..HD / 64 unroll {
            tma.load cs[s * (HD / 64) + kb] <- C[t * BN, kb * 64] signal(full[s]);
          }
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16>;
    var best: frag<wgmma_row, f32, 64> = inf;
    var bidx: frag<wgmma_row, i32, 64> = 0;
    var v: frag<wgmma_row, f32, 64>;
    var j: frag<wgmma_row, i32, 64>;
    wait xfull[0] parity(0);
    for t in SPLIT * math.index..c_tiles step 1 + SPLIT {
      let s = t % S;
      let c0 = t * BN;
      wait full[s] parity((t / S) & 1);
      acc = 0.0;
      wgmma.fence;
      for kb in 0..HD / 64 unroll {
        wgmma acc += xs[kb][64 * (1 - SPLIT) * math.index +: 64, :] * cs[s * (HD / 64) + kb].T;
      }
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];                 // the tile is in registers now: the producer may refill stage s
      }
      acc = select(c0 + acc.col < K, CN[c0 + acc.col] - 2.0 * acc, inf);
      rowargmin v, j <- acc;
      let better = v < best;
      bidx = select(better, c0 + j, bidx);
      best = select(better, v, best);
    }
    if SPLIT == 1 {
      argmin_across(best, bidx, xv, xi, math.index);
    }
    if SPLIT == 0 || math.index == 0 {
      store L[r0 + 64 * (1 - SPLIT) * math.index] <- bidx;
      store MinD[r0 + 64 * (1 - SPLIT) * math.index] <- best;
    }
  }
}
