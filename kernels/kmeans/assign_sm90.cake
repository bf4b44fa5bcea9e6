// The fused distance GEMM kernels of k-means and KNN on sm_90a (docs/kernels.md):
//   kmeans_assign  the assignment step (below);
//   knn_topk, knn_merge  the KK nearest corpus rows of every query (their comment, further down);
//   row_norms      the padded norms CN both take.
//
// kmeans_assign: the k-means assignment step, fused distance GEMM + argmin in registers.
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
//   epilog   per centroid tile, in registers, QUAD = 1 (default): each thread folds its BN / 4 scores of each
//            of its two rows, CN - 2 acc (norms as pairs of adjacent columns from shared memory), into its
//            own running minimum and column (balanced trees; strict <: an earlier tile keeps a tie); after
//            the last tile the quad's four minima are merged with two shuffles (ties: the smaller column)
//            and stored, masked by N.  QUAD = 0: rowargmin v, j <- cns[s][acc.col] - 2 acc per tile (the
//            quad merged every tile; faster for HD = 64, where a work tile has few centroid tiles).
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
fn load_tile(b: i32, t: i32, it: i64) {
  let s = i32(it % S);
  wait empty[s] parity(i32((it / S) & 1) ^ 1);
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
fn issue_tile(var acc: frag<wgmma_acc, f32, 64, BN, 16>, it: i64, xb: i32) {
  let s = i32(it % S);
  wait full[s] parity(i32((it / S) & 1));
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
fn release_tile(it: i64) {
  elect {
    arrive empty[i32(it % S)] cta(0);
    arrive empty[i32(it % S)] cta(1);
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

// QUAD = 1: the thread's own running minimum of each of its two rows (bv[r], its column bi[r]) over its
// BN / 4 columns of the tile - no shuffles per tile; the quad's four threads are merged once per work tile
// (merge_quad).  The norms come as pairs of adjacent columns (one 8-byte shared load each).
fn fold_tile_thread(var bv: f32[2], var bi: i32[2], var acc: frag<wgmma_acc, f32, 64, BN, 16>, s: i32, c0: i32) {
  for r in 0..2 unroll {
    var tv: f32[BN / 8];
    var ti: i32[BN / 8];
    for j in 0..BN / 8 unroll {
      let nrm = cns[s][(i32(lane) % 4) * 2 + 8 * j +: 2];
      let left = fma(-2.0, acc[4 * j + 2 * r], nrm[0]);
      let right = fma(-2.0, acc[4 * j + 2 * r + 1], nrm[1]);
      let take = right < left;                         // a tie keeps the smaller column
      tv[j] = select(take, right, left);
      ti[j] = select(take, 8 * j + 1, 8 * j);
    }
    for l in 1..6 unroll {
      for j in 0..(BN / 8) >> l unroll {
        let take = tv[2 * j + 1] < tv[2 * j];
        tv[j] = select(take, tv[2 * j + 1], tv[2 * j]);
        ti[j] = select(take, ti[2 * j + 1], ti[2 * j]);
      }
    }
    let better = tv[0] < bv[r];                        // strict: an earlier tile keeps a tie
    bv[r] = select(better, tv[0], bv[r]);
    bi[r] = select(better, c0 + (i32(lane) % 4) * 2 + ti[0], bi[r]);
  }
}

// (v, j) = the smallest (score, index) pair (ties: the smaller index) among the lanes whose number differs from
// this lane's in the low `bits` bits only (bits = 2: the quad; 5: the warp), in each of those lanes.
fn lowest_pair(var v: f32, var j: i32, bits: i32) {
  for d in 0..bits unroll {
    let ov = shfl.xor(v, 1 << d);
    let oj = shfl.xor(j, 1 << d);
    let take = ov < v || (ov == v && oj < j);
    v = select(take, ov, v);
    j = select(take, oj, j);
  }
}

// The quad's four running minima of each row -> the row's (ties: the smallest column), in every lane.
fn merge_quad(var bv: f32[2], var bi: i32[2]) {
  for r in 0..2 unroll {
    var v: f32 = bv[r];
    var j: i32 = bi[r];
    lowest_pair(v, j, 2);
    bv[r] = v;
    bi[r] = j;
  }
}

kernel kmeans_assign<T: type = bf16, BM = 128, BN = 128, HD = 128, S = 4, AREG = 1, PP = 1, QUAD = 1>(
    X: T[B, N, D] tma(box=[1, BM, 64], swizzle=128B) align(16),
    C: T[B, K, D] tma(box=[1, BN / 2, 64], swizzle=128B) align(16),
    CN: f32[B, KP] tma(box=[1, BN]) align(16),
    L: i32[B, N] align(16),
    MinD: f32[B, N] align(16))
  requires(D == HD, HD % 64 == 0, HD <= 256, BM == 128, BN % 32 == 0, BN <= 256, S >= 2, AREG == 0 || AREG == 1, PP == 0 || PP == 1,
           KP == cdiv(K, 2 * BN) * 2 * BN, B * cdiv(N, 2 * BM) <= 2147482623)
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
        var ta: i64 = 0;                 // centroid tile numbers of this CTA: the pair's first and second
        var tb: i64 = 1;
        for p in first..pairs step clusters {
          let b = p / ppb;
          let m0 = ((p % ppb) * 2 + rank) * BM;
          load_rows(b, m0, w);
          for t2 in 0..c_pairs {
            load_tile(b, 2 * t2, ta);
            load_tile(b, 2 * t2 + 1, tb);
            ta += 2;
            tb += 2;
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
    var bv: f32[2];                      // QUAD = 1: the thread's running minima of its two rows
    var bi: i32[2];
    var w: i32 = 0;
    var ta: i64 = 0;                     // the centroid tile numbers of acc0 and acc1 (as the producer's)
    var tb: i64 = 1;
    if PP == 1 && math.index == 1 {
      arrive turn[0];                    // consumer 0 issues first
    }
    for p in first..pairs step clusters {
      let b = p / ppb;
      let m0 = ((p % ppb) * 2 + rank) * BM;
      let xb = w % 2;
      best = inf;
      bidx = 0;
      for r in 0..2 unroll {
        bv[r] = inf;
        bi[r] = 0;
      }
      take_rows(w);
      for t2 in 0..c_pairs {
        let t = 2 * t2;
        if PP == 1 {
          sync turn[math.index];           // the other consumer has issued its pair: issue ours behind it
        }
        issue_tile(acc0, ta, xb);
        issue_tile(acc1, tb, xb);
        if PP == 1 {
          arrive turn[1 - math.index];
        }
        wgmma.wait 1;                    // acc0 is ready; acc1's wgmmas run during its epilogue
        if QUAD == 1 {
          fold_tile_thread(bv, bi, acc0, i32(ta % S), t * BN);
        } else {
          fold_tile(best, bidx, acc0, i32(ta % S), t * BN);
        }
        release_tile(ta);
        wgmma.wait 0;
        if QUAD == 1 {
          fold_tile_thread(bv, bi, acc1, i32(tb % S), (t + 1) * BN);
        } else {
          fold_tile(best, bidx, acc1, i32(tb % S), (t + 1) * BN);
        }
        release_tile(tb);
        ta += 2;
        tb += 2;
      }
      elect {
        arrive xempty[xb];
      }
      if QUAD == 1 {
        merge_quad(bv, bi);
        let row = m0 + 64 * math.index + 16 * (i32(warp) % 4) + i32(lane) / 4;
        if lane % 4 == 0 {
          for r in 0..2 unroll {
            if row + 8 * r < N {
              L[b, row + 8 * r] = bi[r];
              MinD[b, row + 8 * r] = bv[r];
            }
          }
        }
      } else {
        store L[b, m0 + 64 * math.index] <- bidx;
        store MinD[b, m0 + 64 * math.index] <- best;
      }
      w += 1;
    }
    if PP == 1 && math.index == 0 {
      sync turn[0];                      // consumer 1's last arrival
    }
  }

  cluster.sync;
}

// (v, j) enters the sorted list (dv, di) of the KK best (score, index) pairs, ascending; the last one drops
// out.  LEX = 1: a tie in score goes to the smaller index; LEX = 0: after the equal scores already there
// (the same order when the caller offers indices in ascending order, and cheaper).  Every entry is decided
// at once, from its own compare and its predecessor's (the list is sorted, so (v, j) goes before entry e
// exactly when it goes before e and e - 1 does not take it): no chain through the list.
fn list_insert(var dv: f32[KK], var di: i32[KK], v: f32, j: i32, LEX: i32) {
  for e in 0..KK unroll {
    let f = KK - 1 - e;                // last entry first: entry f - 1 is still the old one
    let g = max(f - 1, 0);
    let here = v < dv[f] || (LEX == 1 && v == dv[f] && j < di[f]);
    let above = f > 0 && (v < dv[g] || (LEX == 1 && v == dv[g] && j < di[g]));
    dv[f] = select(here, select(above, dv[g], v), dv[f]);
    di[f] = select(here, select(above, di[g], j), di[f]);
  }
}

// rs[2 j + h] = the score CN - 2 acc of the tile's column 2 q + 8 j + h (q = lane % 4) in the thread's row r
// (0 or 1: rows 16 w + g and 16 w + g + 8), the tile's norms in ring stage s.
fn row_scores(var rs: f32[BN / 4], var acc: frag<wgmma_acc, f32, 64, BN, 16>, s: i32, r: i32) {
  for j in 0..BN / 8 unroll {
    for h in 0..2 unroll {
      rs[2 * j + h] = cns[s][(i32(lane) % 4) * 2 + 8 * j + h] - 2.0 * acc[4 * j + 2 * r + h];
    }
  }
}

// The smallest of the scores (four interleaved chains, then a tree of three; BN >= 16).
fn lowest_score(var rs: f32[BN / 4]) -> f32 {
  var m: f32[4];
  for h in 0..4 unroll {
    m[h] = rs[h];
  }
  for e in 4..BN / 4 unroll {
    m[e % 4] = min(m[e % 4], rs[e]);
  }
  return min(min(m[0], m[1]), min(m[2], m[3]));
}

// v, p = the smallest score and its position in rs (the smaller position - column - on ties), by a
// balanced tree.
fn smallest_score(var rs: f32[BN / 4], var v: f32, var p: i32) {
  var tv: f32[BN / 8];
  var ti: i32[BN / 8];
  for e in 0..BN / 8 unroll {
    let right = rs[2 * e + 1] < rs[2 * e];      // a tie keeps the left one: the smaller column
    tv[e] = select(right, rs[2 * e + 1], rs[2 * e]);
    ti[e] = select(right, 2 * e + 1, 2 * e);
  }
  for l in 1..6 unroll {
    for e in 0..(BN / 8) >> l unroll {
      let right = tv[2 * e + 1] < tv[2 * e];
      tv[e] = select(right, tv[2 * e + 1], tv[2 * e]);
      ti[e] = select(right, ti[2 * e + 1], ti[2 * e]);
    }
  }
  v = tv[0];
  p = ti[0];
}

// QL = 0.  Rows 0 and 1 of the thread's score tile (ring stage s, the accumulator's rows g and g + 8) whose
// columns start at c0: each row's scores that beat its list's last entry and do not exceed the row bound `ub`
// enter the list, smallest first (list_offer_pair).
fn list_offer_rows(var dv0: f32[KK], var di0: i32[KK], var ub0: f32, var dv1: f32[KK], var di1: i32[KK],
                   var ub1: f32, var acc: frag<wgmma_acc, f32, 64, BN, 16>, s: i32, c0: i32) {
  var rs0: f32[BN / 4];
  var rs1: f32[BN / 4];
  row_scores(rs0, acc, s, 0);
  row_scores(rs1, acc, s, 1);
  list_offer_pair(dv0, di0, ub0, rs0, dv1, di1, ub1, rs1, c0);
}

// list_offer_rows on the thread's scores rs0 / rs1 of its two rows (rs[2 j + h]: column c0 + 2 (lane % 4) +
// 8 j + h, the column order of both the wgmma and the mma.sync accumulators); rs0 and rs1 are consumed.  The
// common case (no score of either row does, once the lists have filled) costs a minimum over the scores and
// one compare per row; otherwise a loop (at most KK times) extracts each row's smallest remaining score and
// inserts it, the two rows in the same iteration (two independent chains).  KK = 1: each row's smallest
// score of the tile replaces its entry when it is smaller (or equal with a smaller column); no bound, no count.
// ub: an upper bound of the row's KK-th best score: the quad's four threads each hold at least
// cdiv(KK, 4) scores <= the largest of their cdiv(KK, 4)-th entries, so at least KK of the row's scores are
// <= it and a score above it cannot be among the row's KK best (whatever list it would have entered; a
// score equal to it can, on a tie broken by the index, so it is offered).
fn list_offer_pair(var dv0: f32[KK], var di0: i32[KK], var ub0: f32, var rs0: f32[BN / 4],
                   var dv1: f32[KK], var di1: i32[KK], var ub1: f32, var rs1: f32[BN / 4], c0: i32) {
  let col = c0 + (i32(lane) % 4) * 2;
  if KK == 1 {
    list_take_smallest(dv0, di0, rs0, col);
    list_take_smallest(dv1, di1, rs1, col);
  } else {
    let n0 = min(list_offer_count(dv0, ub0, rs0), KK);
    let n1 = min(list_offer_count(dv1, ub1, rs1), KK);
    for n in 0..max(n0, n1) {
      list_offer_step(dv0, di0, ub0, rs0, col);
      list_offer_step(dv1, di1, ub1, rs1, col);
    }
    list_tighten_bound(dv0, ub0);
    list_tighten_bound(dv1, ub1);
  }
}

// KK = 1: the smallest of the scores rs (the thread's columns col + 8 (p / 2) + p % 2) replaces the entry when
// it is smaller, or equal with a smaller column.
fn list_take_smallest(var dv: f32[KK], var di: i32[KK], var rs: f32[BN / 4], col: i32) {
  var v: f32 = inf;
  var p: i32 = 0;
  smallest_score(rs, v, p);
  let j = col + 8 * (p / 2) + p % 2;
  let better = v < dv[0] || (v == dv[0] && j < di[0]);
  dv[0] = select(better, v, dv[0]);
  di[0] = select(better, j, di[0]);
}

// How many of the scores rs beat the list's last entry and the bound ub (0 at the cost of a minimum and one
// compare when none does).
fn list_offer_count(var dv: f32[KK], ub: f32, var rs: f32[BN / 4]) -> i32 {
  var count: i32 = 0;
  if lowest_score(rs) <= min(dv[KK - 1], ub) {      // a score equal to the last entry is rejected below
    for e in 0..BN / 4 unroll {
      count += select(rs[e] < dv[KK - 1] && rs[e] <= ub, 1, 0);
    }
  }
  return count;
}

// The smallest remaining score of rs enters the list when it beats the last entry and ub, and leaves rs.
// LEX = 1: an exact tie goes to the smaller column whatever the order of the offers (knn_small's quad merge
// trusts each list's order).
fn list_offer_step(var dv: f32[KK], var di: i32[KK], ub: f32, var rs: f32[BN / 4], col: i32) {
  var v: f32 = inf;
  var p: i32 = 0;
  smallest_score(rs, v, p);
  if v < dv[KK - 1] && v <= ub {
    list_insert(dv, di, v, col + 8 * (p / 2) + p % 2, 1);
  }
  for e in 0..BN / 4 unroll {
    rs[e] = select(e == p, inf, rs[e]);
  }
}

// ub = min(ub, the largest of the quad's four cdiv(KK, 4)-th entries).
fn list_tighten_bound(var dv: f32[KK], var ub: f32) {
  let own = dv[(KK + 3) / 4 - 1];
  let pair = max(own, shfl.xor(own, 1));
  ub = min(ub, max(pair, shfl.xor(pair, 2)));
}

// QL = 1: (v, j) enters the row's sorted list of 4 cdiv(KK, 4) (score, index) pairs that the quad holds in
// segments - lane q of the quad holds entries q cdiv(KK, 4) .. (q + 1) cdiv(KK, 4) - 1 in (qv, qi) - called
// by the four lanes together with the same (v, j).  Lane q inserts the larger (in (score, index) order) of
// (v, j) and lane q - 1's old last entry - the one that moves into its segment when (v, j) lands before it -
// and drops its own last, so the segments stay one sorted list.
fn segment_insert(var qv: f32[(KK + 3) / 4], var qi: i32[(KK + 3) / 4], v: f32, j: i32) {
  let pv = shfl.up(qv[(KK + 3) / 4 - 1], 1);
  let pj = shfl.up(qi[(KK + 3) / 4 - 1], 1);
  let carry = i32(lane) % 4 != 0 && (pv > v || (pv == v && pj > j));
  let sv = select(carry, pv, v);
  let si = select(carry, pj, j);
  for e in 0..(KK + 3) / 4 unroll {    // as list_insert (LEX = 1), on the lane's segment
    let f = (KK + 3) / 4 - 1 - e;
    let g = max(f - 1, 0);
    let here = sv < qv[f] || (sv == qv[f] && si < qi[f]);
    let above = f > 0 && (sv < qv[g] || (sv == qv[g] && si < qi[g]));
    qv[f] = select(here, select(above, qv[g], sv), qv[f]);
    qi[f] = select(here, select(above, qi[g], si), qi[f]);
  }
}

// QL = 1.  Rows 0 and 1 of the thread's score tile (ring stage s) whose columns start at c0 offered to the
// rows' lists held by the quad (segment_insert); `last0` / `last1` (the same in the quad's four lanes) are
// the lists' last scores.  Each row's scores below it enter in ascending (score, column) order: each round
// takes the quad's smallest remaining pair of each row (the lanes' own smallest, then two shuffle steps)
// and inserts it in every lane at once, the two rows in the same round (two independent chains).  A score
// equal to `last` is not offered: `last` comes from an earlier tile, whose columns are smaller.  The common
// case (no lane of the warp holds a score below its row's last) costs the minimum over the scores and one
// vote.
fn quad_offer_rows(var qv0: f32[(KK + 3) / 4], var qi0: i32[(KK + 3) / 4], var last0: f32,
                   var qv1: f32[(KK + 3) / 4], var qi1: i32[(KK + 3) / 4], var last1: f32,
                   var acc: frag<wgmma_acc, f32, 64, BN, 16>, s: i32, c0: i32) {
  var rs0: f32[BN / 4];
  var rs1: f32[BN / 4];
  row_scores(rs0, acc, s, 0);
  row_scores(rs1, acc, s, 1);
  quad_offer_pair(qv0, qi0, last0, rs0, qv1, qi1, last1, rs1, c0);
}

// quad_offer_rows on the thread's scores rs0 / rs1 of its two rows (rs[2 j + h]: column c0 + 2 (lane % 4) +
// 8 j + h, the column order of both the wgmma and the mma.sync accumulators); rs0 and rs1 are consumed.
fn quad_offer_pair(var qv0: f32[(KK + 3) / 4], var qi0: i32[(KK + 3) / 4], var last0: f32, var rs0: f32[BN / 4],
                   var qv1: f32[(KK + 3) / 4], var qi1: i32[(KK + 3) / 4], var last1: f32, var rs1: f32[BN / 4],
                   c0: i32) {
  if warp.any(lowest_score(rs0) < last0 || lowest_score(rs1) < last1) {
    let rounds = warp.max(max(quad_offer_count(rs0, last0), quad_offer_count(rs1, last1)));
    let col = c0 + (i32(lane) % 4) * 2;
    for n in 0..rounds {
      quad_offer_step(qv0, qi0, last0, rs0, col);
      quad_offer_step(qv1, qi1, last1, rs1, col);
    }
    last0 = shfl.idx(qv0[(KK + 3) / 4 - 1], (i32(lane) / 4) * 4 + 3);
    last1 = shfl.idx(qv1[(KK + 3) / 4 - 1], (i32(lane) / 4) * 4 + 3);
  }
}

// How many scores of the quad's row are below `last`, at most the list's length (the quad's four lanes agree).
fn quad_offer_count(var rs: f32[BN / 4], last: f32) -> i32 {
  var count: i32 = 0;
  for e in 0..BN / 4 unroll {
    count += select(rs[e] < last, 1, 0);
  }
  let pair = count + shfl.xor(count, 1);
  return min(pair + shfl.xor(pair, 2), 4 * ((KK + 3) / 4));
}

// One round of quad_offer_pair for one row: the quad's smallest remaining (score, column) pair leaves the
// lane that held it and enters the list (as +inf, a no-op, once no score is below `last`).
fn quad_offer_step(var qv: f32[(KK + 3) / 4], var qi: i32[(KK + 3) / 4], last: f32, var rs: f32[BN / 4],
                   col: i32) {
  var v: f32 = inf;
  var p: i32 = 0;
  smallest_score(rs, v, p);
  let own = col + 8 * (p / 2) + p % 2;
  var cv: f32 = v;
  var cj: i32 = own;
  lowest_pair(cv, cj, 2);
  for e in 0..BN / 4 unroll {
    rs[e] = select(e == p && own == cj, inf, rs[e]);     // the lane whose pair it was drops it
  }
  segment_insert(qv, qi, select(cv < last, cv, inf), cj);
}

// knn_topk: the KK nearest rows of C (the corpus) to every row of X (the queries), batched, in two steps.
//   knn_topk   QL = 0 (KK <= 32): PD[b, i, 4 s + q, :] / PI[...] = the KK best (score, index) pairs,
//              ascending, of query row i among corpus tiles of split s seen by lane q of its quad (a thread
//              keeps its own list of the columns it holds, so the quad needs no shuffles; the union of the
//              four lists holds the row's KK best).  QL = 1 (KK <= 64): PD[b, i, s, :] / PI[...] = the KK
//              best of row i among split s, one list per row spread over the quad's lanes (cdiv(KK, 4)
//              entries each: a quarter of the registers, shuffles on each insertion).
//              score = CN[b, c] - 2 X[b, i] . C[b, c].
//   knn_merge  the LP lists of each query row (LP = 4 * splits, or splits for QL = 1) -> its KK best,
//              sorted, as distances.
// CN[b, c] = ||C[b, c]||^2 for the squared L2 distance, 0 for the inner product (the scores are then
// -2 <x, c>), for c < K; +inf for K <= c < KP, with KP = cdiv(cdiv(K, 2 BN), splits) * splits * 2 BN:
// every split covers the same number of centroid tile pairs, and the padded columns never enter a list.
// A list that saw fewer than KK columns ends with (+inf, -1) entries.
//
// Schedule: kmeans_assign's (producer, ring, multicast, two accumulators, ping-pong), over work units
// (row pair p, split s) instead of row pairs; the epilogue offers each row's scores to the list only when
// the row's minimum beats the list's last entry (after the first tiles, rarely).
kernel knn_topk<T: type = bf16, BM = 128, BN = 128, HD = 128, S = 4, AREG = 0, PP = 1, KK = 10, QL = 0>(
    X: T[B, N, D] tma(box=[1, BM, 64], swizzle=128B) align(16),
    C: T[B, K, D] tma(box=[1, BN / 2, 64], swizzle=128B) align(16),
    CN: f32[B, KP] tma(box=[1, BN]) align(16),
    PD: f32[B, N, LP, KK],
    PI: i32[B, N, LP, KK])
  requires(D == HD, HD % 64 == 0, HD <= 256, BM == 128, BN % 32 == 0, BN <= 256, S >= 2, AREG == 0 || AREG == 1,
           PP == 0 || PP == 1, QL == 0 || QL == 1, KK >= 1, KK <= 32 + 32 * QL, LP % (4 - 3 * QL) == 0, LP > 0,
           KP == cdiv(cdiv(K, 2 * BN), LP / (4 - 3 * QL)) * (LP / (4 - 3 * QL)) * 2 * BN,
           B * cdiv(N, 2 * BM) * (LP / (4 - 3 * QL)) <= 2147482623)
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
  let splits = max(LP / (4 - 3 * QL), 1);  // (>= 1 by requires) LP / lists per split: 4 (QL = 0, a list per lane of the quad) or 1
  let upb = ppb * splits;                  // work units (row pair, split) per batch
  let units = B * upb;
  let pps = KP / (2 * BN) / splits;        // centroid tile pairs per split
  let first = i32(block.x) / 2;
  let clusters = i32(grid_dim.x) / 2;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        var w: i32 = 0;
        var ta: i64 = 0;                 // centroid tile numbers of this CTA: the pair's first and second
        var tb: i64 = 1;
        for u in first..units step clusters {
          let b = min(u / upb, B - 1);         // u / upb < B: the min says so to the verifier
          let m0 = ((u / splits % ppb) * 2 + rank) * BM;
          let t0 = 2 * (u % splits) * pps;
          load_rows(b, m0, w);
          for t2 in 0..pps {
            load_tile(b, t0 + 2 * t2, ta);
            load_tile(b, t0 + 2 * t2 + 1, tb);
            ta += 2;
            tb += 2;
          }
          w += 1;
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc0: frag<wgmma_acc, f32, 64, BN, 16>;
    var acc1: frag<wgmma_acc, f32, 64, BN, 16>;
    var xa: frag<wgmma_a, T, 64, BN, 16>[HD / 16];   // AREG = 1: the work unit's X rows, the A operand
    var dv0: f32[KK];
    var di0: i32[KK];
    var dv1: f32[KK];
    var di1: i32[KK];
    var ub0: f32;
    var ub1: f32;
    var qv0: f32[(KK + 3) / 4];          // QL = 1: the lane's segments of its two rows' lists
    var qi0: i32[(KK + 3) / 4];
    var qv1: f32[(KK + 3) / 4];
    var qi1: i32[(KK + 3) / 4];
    var last0: f32;
    var last1: f32;
    var w: i32 = 0;
    var ta: i64 = 0;                     // the centroid tile numbers of acc0 and acc1 (as the producer's)
    var tb: i64 = 1;
    if PP == 1 && math.index == 1 {
      arrive turn[0];                    // consumer 0 issues first
    }
    for u in first..units step clusters {
      let sp = u % splits;
      let b = min(u / upb, B - 1);         // u / upb < B: the min says so to the verifier
      let m0 = ((u / splits % ppb) * 2 + rank) * BM;
      let xb = w % 2;
      let t0 = 2 * sp * pps;
      if QL == 0 {
        for e in 0..KK unroll {
          dv0[e] = inf;
          di0[e] = -1;
          dv1[e] = inf;
          di1[e] = -1;
        }
        ub0 = inf;
        ub1 = inf;
      } else {
        for e in 0..(KK + 3) / 4 unroll {
          qv0[e] = inf;
          qi0[e] = -1;
          qv1[e] = inf;
          qi1[e] = -1;
        }
        last0 = inf;
        last1 = inf;
      }
      take_rows(w);
      for t2 in 0..pps {
        let t = 2 * t2;
        if PP == 1 {
          sync turn[math.index];
        }
        issue_tile(acc0, ta, xb);
        issue_tile(acc1, tb, xb);
        if PP == 1 {
          arrive turn[1 - math.index];
        }
        wgmma.wait 1;
        if QL == 0 {
          list_offer_rows(dv0, di0, ub0, dv1, di1, ub1, acc0, i32(ta % S), (t0 + t) * BN);
        } else {
          quad_offer_rows(qv0, qi0, last0, qv1, qi1, last1, acc0, i32(ta % S), (t0 + t) * BN);
        }
        release_tile(ta);
        wgmma.wait 0;
        if QL == 0 {
          list_offer_rows(dv0, di0, ub0, dv1, di1, ub1, acc1, i32(tb % S), (t0 + t + 1) * BN);
        } else {
          quad_offer_rows(qv0, qi0, last0, qv1, qi1, last1, acc1, i32(tb % S), (t0 + t + 1) * BN);
        }
        release_tile(tb);
        ta += 2;
        tb += 2;
      }
      elect {
        arrive xempty[xb];
      }
      let row = m0 + 64 * math.index + 16 * (i32(warp) % 4) + i32(lane) / 4;
      if QL == 0 {
        let list = 4 * sp + i32(lane) % 4;
        for e in 0..KK unroll {
          if row < N {
            PD[b, row, list, e] = dv0[e];
            PI[b, row, list, e] = di0[e];
          }
          if row + 8 < N {
            PD[b, row + 8, list, e] = dv1[e];
            PI[b, row + 8, list, e] = di1[e];
          }
        }
      } else {
        for e in 0..(KK + 3) / 4 unroll {
          let slot = (i32(lane) % 4) * ((KK + 3) / 4) + e;   // the lane's segment of the row's list
          if row < N && slot < KK {
            PD[b, row, sp, slot] = qv0[e];
            PI[b, row, sp, slot] = qi0[e];
          }
          if row + 8 < N && slot < KK {
            PD[b, row + 8, sp, slot] = qv1[e];
            PI[b, row + 8, sp, slot] = qi1[e];
          }
        }
      }
      w += 1;
    }
    if PP == 1 && math.index == 0 {
      sync turn[0];
    }
  }

  cluster.sync;
}

// One warp per query row (b, i) merges the LP sorted lists of PD / PI (ascending by (score, index); a list
// that saw fewer than KK columns ends with (+inf, -1) entries) into the row's KK best, ascending:
// OD[b, i, e] = scale * score + QN[b, i] (scale 1 and QN = ||x||^2 give squared L2 distances; scale -0.5 and
// QN = 0 give the inner product), OI[b, i, e] its column (-1 past K: OD = +inf).  Two ways:
//   merge_across_lanes (KK > 16, and KK <= 16 with LP <= 1.5 KK): the merged list spread over the lanes;
//   merge_in_lanes (KK <= 16 with more lists): a list per lane, then a warp-wide selection of the KK best.

// Lane l holds entries l and l + 32 (KK > 32) of the merged list (past KK: (+inf, -1)); each further list comes
// in the same way (coalesced loads; eight lists' loads in flight at once), reversed across the entries (lane
// 31 - l's, halves swapped), and each entry keeps the smaller of itself and the reversed one: the 32 H smallest
// of both lists as a bitonic sequence, which half-cleaner steps sort ascending: in-lane between the halves
// (distance 32), then xor 16, 8, 4, 2, 1 across the lanes (a list of +inf entries, past LP, leaves it as it is).
fn merge_across_lanes(b: i32, i: i32, l: i32, qn: f32) {
  var v: f32[(KK + 31) / 32];
  var j: i32[(KK + 31) / 32];
  for h in 0..(KK + 31) / 32 unroll {
    v[h] = inf;
    j[h] = -1;
    if l + 32 * h < KK {
      v[h] = PD[b, i, 0, l + 32 * h];
      j[h] = PI[b, i, 0, l + 32 * h];
    }
  }
  for m0 in 1..LP step 8 {
    var w: f32[8 * ((KK + 31) / 32)];
    var wj: i32[8 * ((KK + 31) / 32)];
    for u in 0..8 unroll {
      for h in 0..(KK + 31) / 32 unroll {
        w[u * ((KK + 31) / 32) + h] = inf;
        wj[u * ((KK + 31) / 32) + h] = -1;
        if l + 32 * h < KK && m0 + u < LP {
          w[u * ((KK + 31) / 32) + h] = PD[b, i, m0 + u, l + 32 * h];
          wj[u * ((KK + 31) / 32) + h] = PI[b, i, m0 + u, l + 32 * h];
        }
      }
    }
    for u in 0..8 unroll {
      for h in 0..(KK + 31) / 32 unroll {
        let rv = shfl.idx(w[u * ((KK + 31) / 32) + (KK + 31) / 32 - 1 - h], 31 - l);
        let rj = shfl.idx(wj[u * ((KK + 31) / 32) + (KK + 31) / 32 - 1 - h], 31 - l);
        let take = rv < v[h] || (rv == v[h] && rj < j[h]);
        v[h] = select(take, rv, v[h]);
        j[h] = select(take, rj, j[h]);
      }
      if KK > 32 {                                  // the distance-32 step, in the lane
        let swap = v[1] < v[0] || (v[1] == v[0] && j[1] < j[0]);
        let v0 = v[0];
        let j0 = j[0];
        v[0] = select(swap, v[1], v0);
        j[0] = select(swap, j[1], j0);
        v[1] = select(swap, v0, v[1]);
        j[1] = select(swap, j0, j[1]);
      }
      for h in 0..(KK + 31) / 32 unroll {
        var hv: f32 = v[h];
        var hj: i32 = j[h];
        for s in 0..5 unroll {
          let ov = shfl.xor(hv, 16 >> s);
          let oj = shfl.xor(hj, 16 >> s);
          let lower = ov < hv || (ov == hv && oj < hj);   // the partner's entry comes first
          let keep_low = (l & (16 >> s)) == 0;            // this lane keeps the smaller of the pair
          let swap = select(keep_low, lower, ov > hv || (ov == hv && oj > hj));
          hv = select(swap, ov, hv);
          hj = select(swap, oj, hj);
        }
        v[h] = hv;
        j[h] = hj;
      }
    }
  }
  for h in 0..(KK + 31) / 32 unroll {
    if l + 32 * h < KK {
      OD[b, i, l + 32 * h] = select(j[h] >= 0, scale * v[h] + qn, inf);
      OI[b, i, l + 32 * h] = j[h];
    }
  }
}

// Lane l merges lists l, l + 32, ... into a sorted register list (the first one copied; a list whose first
// entry beats the running list's last is inserted whole, its KK loads in flight at once), with no shuffles;
// then KK rounds of a warp-wide minimum of the lanes' list heads (the winning lane drops its head).
fn merge_in_lanes(b: i32, i: i32, l: i32, qn: f32) {
  var dv: f32[KK];
  var di: i32[KK];
  for e in 0..KK unroll {
    dv[e] = inf;
    di[e] = -1;
  }
  if l < LP {
    for e in 0..KK unroll {
      dv[e] = PD[b, i, l, e];
      di[e] = PI[b, i, l, e];
    }
  }
  for m in l + 32..LP step 32 {
    var w: f32[KK];
    var wj: i32[KK];
    for e in 0..KK unroll {
      w[e] = PD[b, i, m, e];
      wj[e] = PI[b, i, m, e];
    }
    if w[0] < dv[KK - 1] || (w[0] == dv[KK - 1] && wj[0] < di[KK - 1]) {   // else none of the list does
      for e in 0..KK unroll {
        list_insert(dv, di, w[e], wj[e], 1);
      }
    }
  }
  for e in 0..KK {
    var bv: f32 = dv[0];
    var bi: i32 = di[0];
    lowest_pair(bv, bi, 5);
    if dv[0] == bv && di[0] == bi {
      for f in 0..KK - 1 unroll {
        dv[f] = dv[f + 1];
        di[f] = di[f + 1];
      }
      dv[KK - 1] = inf;
      di[KK - 1] = -1;
    }
    if l == 0 {
      OD[b, i, e] = select(bi >= 0, scale * bv + qn, inf);
      OI[b, i, e] = bi;
    }
  }
}

kernel knn_merge<KK = 10, WPB = 4>(
    PD: f32[B, N, LP, KK],
    PI: i32[B, N, LP, KK],
    QN: f32[B, N],
    OD: f32[B, N, KK],
    OI: i32[B, N, KK],
    scale: f32)
  requires(KK >= 1, KK <= 64, LP > 0, LP <= 65536)
  grid(cdiv(N, WPB), B) threads(32 * WPB)
{
  let i = i32(block.x) * WPB + i32(warp);
  let b = i32(block.y);
  let l = i32(lane);
  if i < N {
    let qn = QN[b, i];
    if KK > 16 {
      merge_across_lanes(b, i, l, qn);
    } else {
      if 2 * LP <= 3 * KK {           // few lists: their merges cost less than the KK selection rounds
        merge_across_lanes(b, i, l, qn);
      } else {
        merge_in_lanes(b, i, l, qn);
      }
    }
  }
}

// NP[b, i] = scale * ||X[b, i]||^2 for i < N and +inf for N <= i < NP's length: the padded norms CN of
// kmeans_assign / knn_topk (scale 1; scale 0 gives knn_topk's inner-product zeros) and the query norms of
// knn_merge.  HD / 8 threads per row, one 16-byte load each, then shuffles within the row's lanes.
kernel row_norms<T: type = bf16, HD = 128, RPB = 16>(
    X: T[B, N, D] align(16),
    NP: f32[B, NPAD],
    scale: f32)
  requires(D == HD, HD % 8 == 0, HD <= 256, 32 % (HD / 8) == 0, RPB * HD / 8 <= 1024, RPB * HD % 256 == 0)
  grid(cdiv(NPAD, RPB), B) threads(RPB * HD / 8)
{
  let t = i32(tid.x);
  let r = i32(block.x) * RPB + t / (HD / 8);
  let b = i32(block.y);
  var sum: f32 = 0.0;
  if r < N {
    let v = f32x8(X[b, r, (t % (HD / 8)) * 8 +: 8]);
    for e in 0..8 unroll {
      sum = fma(v[e], v[e], sum);
    }
  }
  for l in 0..5 unroll {
    if (1 << l) < HD / 8 {
      sum += shfl.xor(sum, 1 << l);
    }
  }
  if t % (HD / 8) == 0 && r < NPAD {
    NP[b, r] = select(r < N, scale * sum, inf);
  }
}

// knn_small: the KK nearest corpus rows of every query with mma.sync and in-kernel norms, in one launch
// (LP = 1) or as LP lists per row (corpus pieces x column groups, below) that knn_merge merges:
//   LP = 1: OD[b, i, 0, e] / OI[b, i, 0, e], e < KK: the KK nearest rows of C to row i of X, ascending by
//   (distance, index): OD = oscale * (CN - 2 X . C) + QN with CN = nscale ||c||^2 and QN = nscale ||x||^2
//   (nscale 1, oscale 1: squared L2 distances; nscale 0, oscale -0.5: the inner products, descending).
//   (+inf, -1) past K.  QN is not written.
//   LP > 1: OD[b, i, l, :] / OI[b, i, l, :] = list l of row i: the KK best (score CN - 2 X . C, index) pairs,
//   ascending, of the columns its piece and column group cover; QN[b, i] as above (written by piece 0);
//   knn_merge(OD, OI, QN, ..., oscale) gives the answer.
// X[B, N, D], C[B, K, D] of element type T, any N, K, B; D == HD, a multiple of 32 up to 256.
//
// Schedule (kmeans_assign_sm80's, with the norms and the lists added)
//   grid     cdiv(N, 128 / WC) x LP / WC x B blocks of 8 warps; block (x, p, b) owns query rows
//            x 128 / WC +: 128 / WC of batch b and corpus piece p (cdiv(cdiv(K, BN WC), LP / WC) tiles of BN WC
//            corpus rows).  Warp w takes query rows 16 (w / WC) +: 16, kept as HD / 16 mma_a fragments
//            (ldmatrix) for the whole piece, and columns BN (w % WC) +: BN of every tile: WC = 1, a warp per 16
//            rows; WC > 1, WC warps share 16 rows (few queries still keep the eight warps busy), each with its
//            own lists, list p WC + w % WC of the row.  A warp whose rows all lie past N only loads and syncs.
//   norms    the query rows' norms from shared memory once (two threads per row); each corpus tile's norms
//            from its ring stage when it lands (256 / (BN WC) threads per row), +inf past K, so padded columns
//            never enter a list; a second barrier per tile publishes them before the epilogue.
//   corpus   tiles through an S-stage cp.async ring (rows padded by 8 elements), as kmeans_assign_sm80.
//   lists    QL = 0: per thread and row (two rows: g and g + 8 of the warp's 16), the KK best (score, column)
//            of the columns the thread holds, offered smallest first when they beat the list's last entry
//            (list_offer_pair, with the quad's bound ub; KK <= 32: both lists stay in registers); after the
//            piece's last tile the quad's four lists of a row are merged (KK rounds of a quad minimum, the
//            winning lane drops its head) and lane 0 of the quad stores the row, masked by N.  QL = 1: one list
//            per row held by the quad in segments (quad_offer_pair, KK <= 64), stored as it stands.
// The sum of eight partial sums, as a balanced tree.
fn sum8(var p: f32[8]) -> f32 {
  return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
}

// Corpus tile kt (BN WC rows; tiles past the corpus, which the last piece may hold, are clamped to the one
// just past it: zero-filled all the same) into ring stage s.
fn load_corpus(s: i32, kt: i32) {
  let kc = min(kt, cdiv(K, BN * WC));
  for v in 0..(BN * WC * HD / 8) / 256 unroll {
    let idx = v * 256 + i32(tid.x);
    let r = idx / (HD / 8);
    let c = (idx % (HD / 8)) * 8;
    cp.async cs[s][r, c +: 8] <- C[b, kc * BN * WC + r, c +: 8] valid(kc * BN * WC + r < K);
  }
}

// The quad's four sorted lists (dv, di) of query row `row` -> the row's KK best of split sp, stored by the
// quad's lane 0: distances (LP = 1) or scores (LP > 1, for knn_merge).
fn merge_store_row(var dv: f32[KK], var di: i32[KK], row: i32, qn: f32, sp: i32) {
  for e in 0..KK {
    var bv: f32 = dv[0];
    var bj: i32 = di[0];
    lowest_pair(bv, bj, 2);
    if dv[0] == bv && di[0] == bj {
      for f in 0..KK - 1 unroll {
        dv[f] = dv[f + 1];
        di[f] = di[f + 1];
      }
      dv[KK - 1] = inf;
      di[KK - 1] = -1;
    }
    if lane % 4 == 0 && row < N {
      OD[b, row, sp, e] = select(LP > 1, bv, select(bj >= 0, oscale * bv + qn, inf));
      OI[b, row, sp, e] = bj;
    }
  }
}

// QL = 1: the quad's list of query row `row` (lane q holds entries q cdiv(KK, 4) +: cdiv(KK, 4)), stored as
// merge_store_row stores it.
fn store_segments(var qv: f32[(KK + 3) / 4], var qi: i32[(KK + 3) / 4], row: i32, qn: f32, sp: i32) {
  for e in 0..(KK + 3) / 4 unroll {
    let slot = (i32(lane) % 4) * ((KK + 3) / 4) + e;
    if row < N && slot < KK {
      OD[b, row, sp, slot] = select(LP > 1, qv[e], select(qi[e] >= 0, oscale * qv[e] + qn, inf));
      OI[b, row, sp, slot] = qi[e];
    }
  }
}

kernel knn_small<T: type = bf16, BN = 64, HD = 128, S = 3, KK = 10, QL = 0, WC = 1>(
    X: T[B, N, D] align(16),
    C: T[B, K, D] align(16),
    OD: f32[B, N, LP, KK],
    OI: i32[B, N, LP, KK],
    QN: f32[B, N],
    nscale: f32,
    oscale: f32)
  requires(D == HD, HD % 32 == 0, HD <= 256, BN == 16 || BN == 32 || BN == 64, S >= 2, KK >= 1,
           WC == 1 || WC == 2 || WC == 4 || WC == 8, BN * WC >= 32, BN * WC <= 256, (BN * WC * HD / 8) % 256 == 0,
           N <= 2147483392, K <= 1073741824, LP >= 1, LP % WC == 0, LP / WC <= 65535, B <= 65535,
           QL == 0 || QL == 1, KK <= 32 + 32 * QL)
  grid(cdiv(N, 128 / WC), LP / WC, B) threads(256)
{
  shared xs: T[128 / WC, HD + 8] align(128);
  shared cs: T[S][BN * WC, HD + 8] align(128);
  shared cns: f32[S][BN * WC] align(16);

  let t = i32(tid.x);
  let splits = LP / WC;                // corpus splits (LP: the lists per row, WC of them per split)
  let b = i32(block.z);
  let sp = i32(block.y);
  let m0 = i32(block.x) * (128 / WC);
  let qb = i32(warp) / WC;             // the warp's query rows: 16 qb +: 16 of the block's
  let cg = i32(warp) % WC;             // its columns of each corpus tile: BN cg +: BN
  let tiles = cdiv(cdiv(K, BN * WC), splits);   // corpus tiles per split (the last split's past K are +inf)
  let t0 = sp * tiles;                 // this split's first tile
  let live = m0 + 16 * qb < N;         // the warp has query rows (warp-uniform)

  for v in 0..cdiv(128 / WC * HD / 8, 256) unroll {
    let idx = v * 256 + t;
    let r = idx / (HD / 8);
    let c = (idx % (HD / 8)) * 8;
    if idx < 128 / WC * HD / 8 {
      cp.async xs[r, c +: 8] <- X[b, m0 + r, c +: 8] valid(m0 + r < N);
    }
  }
  cp.async.commit;
  for q in 0..S - 1 unroll {
    if q < tiles {
      load_corpus(q, t0 + q);
    }
    cp.async.commit;
  }
  cp.async.wait S - 1;                 // the X group (the oldest) has landed
  syncthreads;
  var xa: frag<mma_a, T, 16, 8, 16>[HD / 16];
  for kk in 0..HD / 16 unroll {
    ldmatrix xa[kk] <- xs[qb * 16 + lane % 16, kk * 16 + (lane / 16) * 8 +: 8];
  }
  // The warp's 16 query norms: the diagonal of X X^T over its rows, two 16 x 8 blocks of mma.sync (HD / 8 of
  // them, where summing the squares in the threads takes HD / 2 multiply-adds and conversions per thread).
  // Row g's (g = lane / 4) lies at column g of block 0, row g + 8's at column g of block 1: in lane g / 2 of
  // the quad, element g % 2 (row g) and 2 + g % 2 (row g + 8).
  var xx: frag<mma_c, f32, 16, 8, 16>[2] = 0.0;
  for kk in 0..HD / 16 unroll {
    var xb: frag<mma_b, T, 16, 8, 16>[2];
    ldmatrix xb[0], xb[1] <- xs[qb * 16 + (lane / 16) * 8 + lane % 8, kk * 16 + ((lane / 8) % 2) * 8 +: 8];
    mma.sync xx[0] += xa[kk] * xb[0];
    mma.sync xx[1] += xa[kk] * xb[1];
  }
  let odd = (i32(lane) / 4) % 2 == 1;
  let holder = (i32(lane) / 4) * 4 + (i32(lane) / 4) / 2;
  let qn0 = nscale * shfl.idx(select(odd, xx[0][1], xx[0][0]), holder);   // row 16 qb + g's norm
  let qn1 = nscale * shfl.idx(select(odd, xx[1][3], xx[1][2]), holder);   // row 16 qb + g + 8's
  if LP > 1 && sp == 0 && cg == 0 && i32(lane) % 4 == 0 {
    let r0 = m0 + qb * 16 + i32(lane) / 4;
    if r0 < N {
      QN[b, r0] = qn0;
    }
    if r0 + 8 < N {
      QN[b, r0 + 8] = qn1;
    }
  }

  var dv0: f32[KK];                    // QL = 0: the thread's lists of its two rows
  var di0: i32[KK];
  var dv1: f32[KK];
  var di1: i32[KK];
  if QL == 0 {
    for e in 0..KK unroll {
      dv0[e] = inf;
      di0[e] = -1;
      dv1[e] = inf;
      di1[e] = -1;
    }
  }
  var ub0: f32 = inf;
  var ub1: f32 = inf;
  var qv0: f32[(KK + 3) / 4];          // QL = 1: the lane's segments of its two rows' lists
  var qi0: i32[(KK + 3) / 4];
  var qv1: f32[(KK + 3) / 4];
  var qi1: i32[(KK + 3) / 4];
  var last0: f32 = inf;
  var last1: f32 = inf;
  if QL == 1 {
    for e in 0..(KK + 3) / 4 unroll {
      qv0[e] = inf;
      qi0[e] = -1;
      qv1[e] = inf;
      qi1[e] = -1;
    }
  }
  for kt in 0..tiles {
    cp.async.wait S - 2;               // tile kt (this thread's copies)
    syncthreads;                       // ... everyone's; stage (kt - 1) % S is free
    let s = kt % S;
    if kt + S - 1 < tiles {
      load_corpus((kt + S - 1) % S, t0 + kt + S - 1);
    }
    cp.async.commit;
    let tc = min(t0 + kt, cdiv(K, BN * WC));   // the tile (clamped as load_corpus clamps it)

    var cq: f32[8];                    // the tile's norms: 256 / (BN WC) threads per row
    for e in 0..8 unroll {
      cq[e] = 0.0;
    }
    for v in 0..HD * BN * WC / 2048 unroll {
      let c = f32x8(cs[s][t / (256 / (BN * WC)), (t % (256 / (BN * WC))) * (HD * BN * WC / 256) + v * 8 +: 8]);
      for e in 0..8 unroll {
        cq[e] = fma(c[e], c[e], cq[e]);
      }
    }
    var csum: f32 = sum8(cq);
    for l in 0..3 unroll {
      if (1 << l) < 256 / (BN * WC) {
        csum += shfl.xor(csum, 1 << l);
      }
    }
    if t % (256 / (BN * WC)) == 0 {
      let r = t / (256 / (BN * WC));
      cns[s][r] = select(tc * BN * WC + r < K, nscale * csum, inf);
    }

    var acc: frag<mma_c, f32, 16, 8, 16>[BN / 8] = 0.0;
    if live {
      for kk in 0..HD / 16 unroll {
        var bf: frag<mma_b, T, 16, 8, 16>[BN / 8];
        for j in 0..BN / 8 step 2 unroll {
          ldmatrix bf[j], bf[j + 1] <- cs[s][cg * BN + j * 8 + (lane / 16) * 8 + lane % 8, kk * 16 + ((lane / 8) % 2) * 8 +: 8];
        }
        for j in 0..BN / 8 unroll {
          mma.sync acc[j] += xa[kk] * bf[j];
        }
      }
    }
    syncthreads;                       // the tile's norms are in cns[s]

    if live {
      // element 2 r + h of acc[j]: row g + 8 r, column 8 j + 2 q + h
      var rs0: f32[BN / 4];
      var rs1: f32[BN / 4];
      for j in 0..BN / 8 unroll {
        let nrm = cns[s][cg * BN + 8 * j + (i32(lane) % 4) * 2 +: 2];
        for h in 0..2 unroll {
          rs0[2 * j + h] = fma(-2.0, acc[j][h], nrm[h]);
          rs1[2 * j + h] = fma(-2.0, acc[j][2 + h], nrm[h]);
        }
      }
      let c0 = tc * BN * WC + cg * BN;
      if QL == 0 {
        list_offer_pair(dv0, di0, ub0, rs0, dv1, di1, ub1, rs1, c0);
      } else {
        quad_offer_pair(qv0, qi0, last0, rs0, qv1, qi1, last1, rs1, c0);
      }
    }
  }
  cp.async.wait 0;

  let row = m0 + qb * 16 + i32(lane) / 4;
  let list = sp * WC + cg;
  if QL == 0 {
    merge_store_row(dv0, di0, row, qn0, list);
    merge_store_row(dv1, di1, row + 8, qn1, list);
  } else {
    store_segments(qv0, qi0, row, qn0, list);
    store_segments(qv1, qi1, row + 8, qn1, list);
  }
}
