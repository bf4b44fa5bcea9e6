// blackwell_kmeans_assign: the k-means assignment step on sm_100a, distance GEMM in tensor memory and the
// argmin read out of it.  No Blackwell GPU was available: verified, estimated and assembled only
// (docs/blackwell.md).
//   L[i] = argmin_c ||X[i] - C[c]||^2 (ties: the smallest c),
//   MinD[i] = CN[L[i]] - 2 X[i] . C[L[i]]   (add ||x||^2 for the squared distance).
// X[N, D] and C[K, D] bf16 with D == HD (64: one k-tile); CN[KP] f32 = ||C[c]||^2 for c < K and +inf for the
// padding K <= c < KP = cdiv(K, BN) * BN, so that padded columns never win; L[N] i32, MinD[N] f32.
//
// Schedule (the CAKE paper's B200 k-means schedule, one CTA per 128-row work tile, persistent):
//   load     = warp 0: one elected lane loads the work tile's X rows [BM, HD] once (xfull / xempty) and every
//              centroid tile [BN, HD] into an S-stage ring (full / empty).
//   issue    = warp 1: one elected lane computes the score tile X * C_t^T (M = 128, N = BN, K = HD in 4
//              tcgen05.mma) into acc[t % 2] of a two-accumulator tensor-memory ring (2 * BN = 256 columns),
//              commits the ring stage back to empty[s] and the accumulator to tmem_full[t % 2]; after the
//              work tile's last centroid tile it commits the X buffer to xempty.
//   epilogue = warpgroup 1: per centroid tile, tcgen05.ld 32 columns at a time - thread t holds row t of
//              the tile, so the row's argmin is the thread's own loop over its registers, no shuffles -
//              folds CN[c] - 2 acc into its running minimum (strict <: an earlier column keeps a tie), and
//              releases the accumulator (tmem_empty, one elected lane per warp).  After the last tile, each
//              thread stores its row's L and MinD (masked by N).
target sm_100a;

kernel blackwell_kmeans_assign<BM = 128, BN = 128, HD = 64, S = 4>(
    X: bf16[N, D] tma(box=[BM, HD], swizzle=128B) align(16),
    C: bf16[K, D] tma(box=[BN, HD], swizzle=128B) align(16),
    CN: f32[KP] align(16),
    L: i32[N] align(16),
    MinD: f32[N] align(16))
  requires(D == HD, HD * 2 == 128, BM == 128, BN % 32 == 0, BN <= 256, S >= 2, KP == cdiv(K, BN) * BN,
           cdiv(N, BM) <= 2147482623, cdiv(N, BM) * (KP / BN) <= 2147483647)
  grid(num_sms) threads(256)
{
  shared xs: bf16[BM, HD] swizzle(128B) align(1024);
  shared cs: bf16[S][BN, HD] swizzle(128B) align(1024);
  tmem acc: f32[2][128, BN];
  mbarrier xfull arrivals(1);
  mbarrier xempty arrivals(1);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(1);
  mbarrier tmem_full[2] arrivals(1);
  mbarrier tmem_empty[2] arrivals(4);

  if tid.x == 0 {
    mbarrier.init xfull;
    mbarrier.init xempty;
    mbarrier.init full;
    mbarrier.init empty;
    mbarrier.init tmem_full;
    mbarrier.init tmem_empty;
    fence.mbarrier_init;
  }
  if warp == 1 {
    tcgen05.alloc acc;
    tcgen05.relinquish;
  }
  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;

  let row_tiles = cdiv(N, BM);
  let c_tiles = KP / BN;
  let first = i32(block.x);
  let stride = i32(grid_dim.x);

  role load = warp(0) {
    elect {
      var w: i32 = 0;
      var it: i32 = 0;
      for p in first..row_tiles step stride {
        wait xempty parity((w & 1) ^ 1);
        arrive xfull expect_tx(BM * HD * 2);
        tma.load xs <- X[p * BM, 0] signal(xfull);
        for t in 0..c_tiles {
          let s = it % S;
          wait empty[s] parity(((it / S) & 1) ^ 1);
          arrive full[s] expect_tx(BN * HD * 2);
          tma.load cs[s] <- C[t * BN, 0] signal(full[s]);
          it += 1;
        }
        w += 1;
      }
    }
  }

  role issue = warp(1) {
    elect {
      var w: i32 = 0;
      var it: i32 = 0;
      for p in first..row_tiles step stride {
        wait xfull parity(w & 1);
        tcgen05.fence.after;
        for t in 0..c_tiles {
          let s = it % S;
          let as = it % 2;
          wait tmem_empty[as] parity(((it / 2) & 1) ^ 1);
          wait full[s] parity((it / S) & 1);
          tcgen05.fence.after;
          tcgen05.mma acc[as] += xs * cs[s].T accumulate(false);
          tcgen05.commit empty[s];
          tcgen05.commit tmem_full[as];
          it += 1;
        }
        tcgen05.commit xempty;
        w += 1;
      }
    }
  }

  role epilogue = warpgroup(1) {
    var it: i32 = 0;
    for p in first..row_tiles step stride {
      var best: f32 = inf;
      var bidx: i32 = 0;
      for t in 0..c_tiles {
        let as = it % 2;
        wait tmem_full[as] parity((it / 2) & 1);
        tcgen05.fence.after;
        for c in 0..BN / 32 {
          var f: frag<tmem_acc, f32, 128, 32, 16>;
          tcgen05.ld f <- acc[as][:, 32 * c +: 32];
          tcgen05.wait.ld;
          let c0 = t * BN + 32 * c;
          for j in 0..32 unroll {
            let score = fma(-2.0, f[j], CN[c0 + j]);
            let take = score < best;
            best = select(take, score, best);
            bidx = select(take, c0 + j, bidx);
          }
        }
        tcgen05.fence.before;
        elect {
          arrive tmem_empty[as];
        }
        it += 1;
      }
      let row = p * BM + epilogue.thread;
      if row < N {
        L[row] = bidx;
        MinD[row] = best;
      }
    }
  }

  tcgen05.fence.before;
  syncthreads;
  tcgen05.fence.after;
  if warp == 1 {
    tcgen05.dealloc acc;
  }
}
