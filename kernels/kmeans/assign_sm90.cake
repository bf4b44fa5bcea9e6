// kmeans_assign (sm_90a): the k-means assignment step, fused distance GEMM + argmin in registers.
//   L[b, i] = argmin_c ||X[b, i] - C[b, c]||^2 (ties: the smallest c),
//   MinD[b, i] = CN[b, L[b, i]] - 2 X[b, i] . C[b, L[b, i]]   (add ||x||^2 for the squared distance).
// X[B, N, D] and C[B, K, D] of element type T (bf16, the default, or f16: -D T=f16),
// CN[B, KP] f32 = ||C[b, c]||^2 for c < K and +inf for K <= c < KP
// (KP = cdiv(K, 2 BN) * 2 BN: the padding makes the columns past K lose every comparison, so the epilogue needs
// no mask, and the centroid tiles come in pairs), L[B, N] i32, MinD[B, N] f32.  D == HD, a compile-time
// multiple of 64; any N, K, B (TMA zero-fills rows past N and K; stores are masked by N).
//
// Schedule
//   grid     num_sms / 2 * 2 persistent blocks of 384 threads in clusters of 2.  A work tile is BM = 128 rows
//            of one batch; a cluster owns a pair of adjacent row tiles of the same batch (CTA rank r: rows
//            (2p + r) * BM) and walks the pairs p = cluster, cluster + clusters, ...
//   roles    load = warpgroup 0, regs(40): one elected thread loads each work tile's X rows into one of two
//            X buffers (the next tile's X lands while the consumers finish the current one), then every
//            centroid tile t of the batch into ring stage it % S (it counts centroid tiles across work
//            tiles): the tile's BN x HD centroids and their BN norms.  The two CTAs of a cluster need the
//            same centroid tiles: each loads half of the rows and multicasts them into both CTAs, so each
//            fetches half a tile from L2.  math[2] = warpgroups 1..2, regs(232): instance i owns rows
//            64 i +: 64 of the work tile.
//   pipeline per pair of centroid tiles, each consumer issues both tiles' wgmmas (two accumulators), waits
//            for the first (wgmma.wait 1) and runs its epilogue while the second one's wgmmas run; then the
//            second's epilogue.  Both groups complete inside the loop body: ptxas serialises wgmmas whose
//            accumulators are read while a group issued in an earlier iteration is still in flight (C7514).
//            PP = 1 (default): the two consumers take turns issuing (named barriers turn[0..1], FA3's
//            ping-pong), so one's epilogues run while the other's wgmmas keep the tensor cores busy;
//            without it they issue together and then sit in their epilogues together (1.19x slower).
//   operand  AREG = 1 (default): each consumer loads its 64 X rows into registers once per work tile
//            (ldmatrix, HD / 16 wgmma_a fragments) and the wgmmas read only the centroids from shared
//            memory; AREG = 0 reads X from shared memory too (needed for HD = 256: the registers run out).
//   barriers xfull[x] (1 arrival, expect_tx BM * HD * sizeof(T)) / xempty[x] (8 arrivals: every consumer warp,
//            after its last wgmma of the work tile) for X buffer x = w % 2 of work tile w.
//            full[s] (1 arrival, expect_tx BN * HD * sizeof(T) + BN * 4: both multicast halves and the norms) /
//            empty[s] (16 arrivals: the consumer warps of both CTAs release stage s in both CTAs, since each
//            producer writes half of every stage of its peer).
//   epilog   per centroid tile, in registers:  rowargmin v, j <- cns[s][acc.col] - 2 acc  (the norms from
//            shared memory: one load per distinct column), then the running best / its index per row
//            (strict <: an earlier tile keeps a tie).  After the last tile: store L and MinD for the work
//            tile's rows (masked by N).
target sm_90a;

// Producer: this CTA's BM rows of X from row m0 of batch b into X buffer w % 2 (work tile number w).
fn load_rows(b: i32, m0: i32, w: i32) {
  let xb = w % 2;
  wait xempty[xb] parity(((w / 2) & 1) ^ 1);
  arrive xfull[xb] expect_tx(BM * HD * sizeof(T));
  for kb in 0..HD / 64 unroll {
    tma.load xs[xb * (HD / 64) + kb] <- X[b, m0, kb * 64] signal(xfull[xb]);
  }
}

// Producer: centroid tile t of batch b (centroid tile number `it` of this CTA) into ring stage it % S: its
// BN norms, and this CTA's half of its rows multicast into both CTAs of the cluster.
fn load_tile(b: i32, t: i32, it: i32) {
  let s = it % S;
  wait empty[s] parity(((it / S) & 1) ^ 1);
  arrive full[s] expect_tx(BN * HD * sizeof(T) + BN * 4);
  tma.load cns[s] <- CN[b, t * BN] signal(full[s]);
  for kb in 0..HD / 64 unroll {
    tma.load cs[s * (HD / 64) + kb][rank * (BN / 2) +: BN / 2, :] <- C[b, t * BN + rank * (BN / 2), kb * 64]
        signal(full[s]) multicast(3);
  }
}

// Consumer: wait for work tile w's X rows; AREG = 1 loads this consumer's 64 rows into the A fragments xa.
fn take_rows(w: i32) {
  let xb = w % 2;
  wait xfull[xb] parity((w / 2) & 1);
  if AREG == 1 {
    for kk in 0..HD / 16 unroll {
      ldmatrix xa[kk] <- xs[xb * (HD / 64) + kk / 4][64 * math.index + 16 * (i32(warp) % 4) + lane % 16,
                                                    (kk % 4) * 16 + (lane / 16) * 8 +: 8];
    }
  }
}

// The wgmmas of centroid tile number `it` (ring stage it % S) against X buffer xb into acc.
fn issue_tile(var acc: frag<wgmma_acc, f32, 64, BN, 16>, it: i32, xb: i32) {
  let s = it % S;
  wait full[s] parity((it / S) & 1);
  acc = 0.0;
  wgmma.fence;
  if AREG == 1 {
    for kk in 0..HD / 16 unroll {
      wgmma acc += xa[kk] * cs[s * (HD / 64) + kk / 4][:, (kk % 4) * 16 +: 16].T;
    }
  } else {
    for kb in 0..HD / 64 unroll {
      wgmma acc += xs[xb * (HD / 64) + kb][64 * math.index +: 64, :] * cs[s * (HD / 64) + kb].T;
    }
  }
  wgmma.commit;
}

// Ring stage of centroid tile `it` is no longer read by this warp: release it in both CTAs.
fn release_tile(it: i32) {
  elect {
    arrive empty[it % S] cta(0);
    arrive empty[it % S] cta(1);
  }
}

// Fold the score tile of centroids c0 .. c0 + BN - 1 (their norms in ring stage s) into the running per-row
// minimum and its index.
fn fold_tile(var best: frag<wgmma_row, f32, 64>, var bidx: frag<wgmma_row, i32, 64>,
             acc: frag<wgmma_acc, f32, 64, BN, 16>, s: i32, c0: i32) {
  var v: frag<wgmma_row, f32, 64>;
  var j: frag<wgmma_row, i32, 64>;
  rowargmin v, j <- cns[s][acc.col] - 2.0 * acc;
  let better = v < best;
  bidx = select(better, c0 + j, bidx);
  best = select(better, v, best);
}

kernel kmeans_assign<T: type = bf16, BM = 128, BN = 128, HD = 128, S = 4, AREG = 1, PP = 1>(
    X: T[B, N, D] tma(box=[1, BM, 64], swizzle=128B) align(16),
    C: T[B, K, D] tma(box=[1, BN / 2, 64], swizzle=128B) align(16),
    CN: f32[B, KP] tma(box=[1, BN]) align(16),
    L: i32[B, N] align(16),
    MinD: f32[B, N] align(16))
  requires(D == HD, HD % 64 == 0, HD <= 256, BM == 128, BN % 32 == 0, BN <= 256, S >= 2, AREG == 0 || AREG == 1, PP == 0 || PP == 1,
           KP == cdiv(K, 2 * BN) * 2 * BN)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared xs: T[2 * (HD / 64)][BM, 64] swizzle(128B) align(1024);
  shared cs: T[S * (HD / 64)][BN, 64] swizzle(128B) align(1024);
  shared cns: f32[S][BN] align(128);
  mbarrier xfull[2] arrivals(1);
  mbarrier xempty[2] arrivals(8);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(16);
  barrier turn[2] id(1) threads(256);

  if tid.x == 0 {
    mbarrier.init xfull;
    mbarrier.init xempty;
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  cluster.sync;

  let rank = i32(cluster.rank);
  let ppb = cdiv(N, 2 * BM);
  let pairs = B * ppb;
  let c_pairs = cdiv(K, 2 * BN);
  let first = i32(block.x) / 2;
  let clusters = i32(grid_dim.x) / 2;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        var w: i32 = 0;
        for p in first..pairs step clusters {
          let b = p / ppb;
          let m0 = ((p % ppb) * 2 + rank) * BM;
          load_rows(b, m0, w);
          for t2 in 0..c_pairs {
            for h in 0..2 unroll {
              load_tile(b, 2 * t2 + h, w * 2 * c_pairs + 2 * t2 + h);
            }
          }
          w += 1;
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc0: frag<wgmma_acc, f32, 64, BN, 16>;
    var acc1: frag<wgmma_acc, f32, 64, BN, 16>;
    var xa: frag<wgmma_a, T, 64, BN, 16>[HD / 16];   // AREG = 1: the work tile's X rows, the A operand
    var best: frag<wgmma_row, f32, 64>;
    var bidx: frag<wgmma_row, i32, 64>;
    var w: i32 = 0;
    if PP == 1 && math.index == 1 {
      arrive turn[0];                    // consumer 0 issues first
    }
    for p in first..pairs step clusters {
      let b = p / ppb;
      let m0 = ((p % ppb) * 2 + rank) * BM;
      let xb = w % 2;
      let it0 = w * 2 * c_pairs;
      best = inf;
      bidx = 0;
      take_rows(w);
      for t2 in 0..c_pairs {
        let t = 2 * t2;
        if PP == 1 {
          sync turn[math.index];           // the other consumer has issued its pair: issue ours behind it
        }
        issue_tile(acc0, it0 + t, xb);
        issue_tile(acc1, it0 + t + 1, xb);
        if PP == 1 {
          arrive turn[1 - math.index];
        }
        wgmma.wait 1;                    // acc0 is ready; acc1's wgmmas run during its epilogue
        fold_tile(best, bidx, acc0, (it0 + t) % S, t * BN);
        release_tile(it0 + t);
        wgmma.wait 0;
        fold_tile(best, bidx, acc1, (it0 + t + 1) % S, (t + 1) * BN);
        release_tile(it0 + t + 1);
      }
      elect {
        arrive xempty[xb];
      }
      store L[b, m0 + 64 * math.index] <- bidx;
      store MinD[b, m0 + 64 * math.index] <- best;
      w += 1;
    }
    if PP == 1 && math.index == 0 {
      sync turn[0];                      // consumer 1's last arrival
    }
  }

  cluster.sync;
}
