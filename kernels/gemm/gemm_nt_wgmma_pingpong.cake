// gemm_nt_wgmma_pingpong: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a: a persistent,
// warp-specialized GEMM whose two consumer warpgroups take turns ("pingpong"): each owns a whole BM x BN
// output tile, and one warpgroup's epilogue runs while the other's wgmmas keep the tensor cores busy.
// A candidate of the bf16 GEMM library (no table entry uses it) for shapes with several tiles per SM whose
// epilogue is a large share of a tile, where a cooperative kernel (samples/hopper_gemm_persistent.cake)
// leaves the tensor cores idle for every epilogue.  A[M, K] row-major, B[N, K] row-major (K-major, "B^T"),
// C[M, N] row-major.  Any M, N (ragged edges included) with K % 8 == 0 (TMA's 16-byte row strides) and N even
// (bf16-pair stores).
//
// Schedule
//   grid     num_sms / 2 * 2 persistent blocks of 384 threads in clusters of 2.  The output is cut into
//            BM x BN tiles; a cluster owns a *pair* of vertically adjacent tiles (rows 2*BM, same columns):
//            CTA rank r computes the tile at rows (2p + r) * BM.  Cluster c walks the pair indices c,
//            c + clusters, ... ; pair index -> (m pair, n tile) is grouped (GM m pairs sweep the n tiles
//            together) so the operand panels in use stay in L2.
//   roles    load = warpgroup 0, regs(40): one elected thread issues the TMA copies of every tile of the
//            block, in order, into one S-stage ring.  math[2] = warpgroups 1..2, regs(232): math[i] takes
//            the block's tiles j = i, i + 2, ... (pair p = first + j * clusters) and computes the whole
//            BM x BN tile into BM / 64 f32 accumulators of 64 x BN (BM = 128: two; BN registers a thread).
//   multicast as the persistent sample: CTA r loads B rows n0 + r*BN/2 +: BN/2 and multicasts them into
//            both CTAs' stage s; A tiles are per CTA.
//   ring     k-tile number `it` counts the block's k-tiles across its tiles (tile j's k-tile k is
//            it = j * k_tiles + k), stage it % S, full waits parity (it / S) & 1, empty the opposite.
//            full[s]: 1 arrival (the local producer's expect_tx of A's tile and both B halves);
//            empty[s]: 8 arrivals (the 4 warps of the one consumer warpgroup that reads stage s, in both
//            CTAs, since each CTA's producer writes half of the peer's stage).
//   turns    named barriers turn[i] (256 threads: math[i] syncs, math[1 - i] arrives) hand the mainloop
//            from one warpgroup to the other: math[i] syncs turn[i] before the mainloop of each of its
//            tiles and arrives on turn[1 - i] after issuing the tile's last wgmma; math[1] arrives on
//            turn[0] once at the start (tile 0 starts at once) and math[0] syncs turn[0] once after its
//            last tile, so every generation completes.  Besides alternating the tensor cores' work, the
//            hand-off is what makes a warpgroup's first wait for a tile target the right phase: it joins
//            the ring S or more k-tiles after the other warpgroup's waits, which have seen the earlier
//            phases of every stage complete (a parity wait alone cannot tell phase n from n - 2).
//   phantom  when a cluster has an odd number of tiles, math[1]'s last turn is a phantom (pair index past the
//            last): the producer loads boxes past A's and B's last rows (zero-filled, no memory traffic) and the
//            consumer multiplies them and stores nothing - the ring keeps one rhythm for every tile, which the
//            verifier needs (a wgmma skipped under a branch is also serialized by ptxas, C7518).
//   pipeline a consumer keeps one wgmma group in flight (wgmma.wait 1) and releases the previous k-tile's
//            stage; after the turn hand-off it drains (wgmma.wait 0), releases the last stage and stores
//            its tile (masked st.global at the wgmma lane layout) while the other warpgroup computes.
//   exit     a final cluster.sync: no CTA exits while its peer may still arrive on its barriers.
//   smem     S * (BM + BN) * BK * 2 bytes (128 x 128 x 64, S = 6: 192 KB).
//
// gemm_nt_wgmma_pingpong_tma_store: the same schedule with the epilogue of samples/hopper_gemm_tma_epilogue.cake:
// each warpgroup converts its tile into its own 128B-swizzled staging tile cs[i] (stmatrix), fences it for
// the async proxy and its issuing thread stores it with TMA, one 64 x 64 box at a time, then goes on
// without waiting; it waits for that store's shared reads only before it stages its next tile (named
// barrier epi[i]: the warpgroup's 128 threads).  N % 8 == 0 (C's TMA stride).  smem: S * (BM + BN) * BK * 2
// + 2 * BM * BN * 2 bytes (128 x 128, S = 4: 192 KB).  A phantom tile's store goes to boxes past C's last
// row, which TMA drops.
// The producer, the tile order and the mainloop are the fns at the end of the file, shared by both kernels.
target sm_90a;

kernel gemm_nt_wgmma_pingpong<BM = 128, BN = 128, BK = 64, S = 6, GM = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, 2 * cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 2147483647,
           GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 2 == 0, BM == 128, BK * 2 == 128, BN % 16 == 0,
           BN <= 128, S >= 2, GM >= 1)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8);
  barrier turn[2] id(1) threads(256);

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
    load_tile_pairs();
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc0: frag<wgmma_acc, f32, 64, BN, 16>;
    var acc1: frag<wgmma_acc, f32, 64, BN, 16>;
    if math.index == 1 {
      arrive turn[0];                      // math[0] computes the block's first tile at once
    }
    var it: i32 = 0;
    for j in first..pairs step 2 * clusters {
      for h in 0..2 unroll {
        let p = j + h * clusters;
        take_turn(acc0, acc1, it, h);
        if h == math.index && p < pairs {
          let m0 = tile_row(p);
          let n0 = tile_column(p);
          store C[m0, n0] <- bf16(acc0);
          store C[m0 + 64, n0] <- bf16(acc1);
        }
      }
    }
    if math.index == 0 {
      sync turn[0];                        // math[1]'s hand-off after the block's last tile pair
    }
  }

  cluster.sync;
}

kernel gemm_nt_wgmma_pingpong_tma_store<BM = 128, BN = 128, BK = 64, S = 4, GM = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] tma(box=[64, 64], swizzle=128B) align(16))
  requires(cdiv(M, 2 * BM) * cdiv(N, BN) <= 2147482623, 2 * cdiv(M, 2 * BM) * cdiv(N, BN) * cdiv(K, BK) <= 2147483647,
           GM * cdiv(N, BN) <= 2147483647, K % 8 == 0, N % 8 == 0, BM == 128, BK * 2 == 128, BN % 64 == 0,
           BN <= 128, S >= 2, GM >= 1)
  grid(num_sms / 2 * 2) threads(384) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8);
  barrier turn[2] id(1) threads(256);
  shared cs: bf16[2][BM, BN] swizzle(128B) align(1024);   // each warpgroup's staging tile: BN / 64 boxes of [BM, 64]
  barrier epi[2] id(3) threads(128);

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
    load_tile_pairs();
  }

  role math[2] = warpgroups(1..3) regs(232) {
    var acc0: frag<wgmma_acc, f32, 64, BN, 16>;
    var acc1: frag<wgmma_acc, f32, 64, BN, 16>;
    if math.index == 1 {
      arrive turn[0];                      // math[0] computes the block's first tile at once
    }
    var it: i32 = 0;
    for j in first..pairs step 2 * clusters {
      for h in 0..2 unroll {
        let p = j + h * clusters;
        take_turn(acc0, acc1, it, h);
        if h == math.index {
          // Epilogue: accumulators -> cs[i] (stmatrix) -> TMA store; a phantom's boxes lie past C's last row.
          let m0 = select(p < pairs, tile_row(p), M);
          let n0 = tile_column(p);
          if math.thread == 0 {
            tma.store.wait 0;              // this warpgroup's previous store has read cs[i]
          }
          sync epi[math.index];
          store cs[math.index][0, 0] <- bf16(acc0);
          store cs[math.index][64, 0] <- bf16(acc1);
          fence.proxy_async;               // stmatrix writes (generic proxy) before the TMA read (async proxy)
          sync epi[math.index];
          if math.thread == 0 {
            for r in 0..BM / 64 unroll {
              for c in 0..BN / 64 unroll {
                tma.store C[m0 + 64 * r, n0 + 64 * c] <- cs[math.index][64 * r +: 64, 64 * c +: 64];
              }
            }
            tma.store.commit;
          }
        }
      }
    }
    if math.thread == 0 {
      tma.store.wait 0;                    // the last store has read its source before the block exits
    }
    if math.index == 0 {
      sync turn[0];                        // math[1]'s hand-off after the block's last tile pair
    }
  }

  cluster.sync;
}

// The producer: every tile of the block in order, the pair's two tiles per iteration of j (the second a
// phantom past the last pair: boxes past A's and B's last rows, zero-filled), k-tile `it` into stage it % S.
fn load_tile_pairs() {
  if load.warp == 0 {
    elect {
      var it: i32 = 0;
      for j in first..pairs step 2 * clusters {
        for h in 0..2 unroll {
          let p = j + h * clusters;
          let m0 = select(p < pairs, tile_row(p), M);
          let n0 = select(p < pairs, tile_column(p), N);
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
}

// Tile pair p's rows for this CTA (rank r: the pair's tile r) and its columns, in the grouped order; a
// phantom p (>= pairs) is mapped onto the last pair (callers select their own coordinates for it).
fn tile_row(p: i32) -> i32 {
  let q = min(p, pairs - 1);
  let g0 = (q / group) * GM;
  let gm = min(m_pairs - g0, GM);
  return ((g0 + (q % group) % gm) * 2 + rank) * BM;
}

fn tile_column(p: i32) -> i32 {
  let q = min(p, pairs - 1);
  let g0 = (q / group) * GM;
  let gm = min(m_pairs - g0, GM);
  return ((q % group) / gm) * BN;
}

// One turn of the pair's tile h: math[h] takes the tensor cores (sync turn), runs the tile's mainloop -
// one wgmma group in flight, each stage released in both CTAs once the group that read it completed - and
// hands them over; the other warpgroup only counts the k-tiles.  Both leave with the accumulators retired.
fn take_turn(var acc0: frag<wgmma_acc, f32, 64, BN, 16>, var acc1: frag<wgmma_acc, f32, 64, BN, 16>, var it: i32, h: i32) {
  if h == math.index {
    sync turn[math.index];                 // the other warpgroup has issued its tile's mainloop
  }
  acc0 = 0.0;
  acc1 = 0.0;
  for k in 0..k_tiles {
    if h == math.index {
      let s = it % S;
      wait full[s] parity((it / S) & 1);
      wgmma.fence;
      for kk in 0..BK / 16 unroll {        // the two accumulators' instructions alternate: no two in a row depend
        wgmma acc0 += a[s][0 +: 64, kk * 16 +: 16] * b[s][:, kk * 16 +: 16].T;
        wgmma acc1 += a[s][64 +: 64, kk * 16 +: 16] * b[s][:, kk * 16 +: 16].T;
      }
      wgmma.commit;
      wgmma.wait 1;                        // k-tile it-1's group is done: release its stage in both CTAs
      if k > 0 {
        elect {
          arrive empty[(it - 1) % S] cta(0);
          arrive empty[(it - 1) % S] cta(1);
        }
      }
    }
    it += 1;                               // counts the other warpgroup's k-tiles too
  }
  if h == math.index {
    arrive turn[1 - math.index];           // hand the tensor cores to the block's next tile
  }
  wgmma.wait 0;                            // (no group pending in the other warpgroup: returns at once)
  if h == math.index {
    elect {
      arrive empty[(it - 1) % S] cta(0);
      arrive empty[(it - 1) % S] cta(1);
    }
  }
}
