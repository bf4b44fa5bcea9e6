// gemm_nt_wgmma_streamk: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a, stream-K: a bf16 GEMM
// library candidate against wave quantization on mid-size shapes (384 output tiles on 132 SMs are 2.9 waves: the
// last wave runs 90% full, and a shape one tile past a whole wave runs two waves for 1.01 waves of work).  On the
// H100 it measured slower than the data-parallel tile kernels on the mid-M shapes it was built for, 1.5x
// slower than the best of them even with the fix-up one pair per thread (bench/results/2026-12-07-library-gemm/
// run12, run13), so no table entry uses it.
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major.  Any M, N (ragged edges) with
// K % 8 == 0 (TMA needs 16-byte row strides) and N even (bf16 and f32 pairs).
//
// The work is the sequence of MAC iterations it = tile * KT + kt (tile = tm * tiles_n + tn row-major over the
// BM x BN output tiles, kt the k-tile, KT = cdiv(K, BK)), TOTAL = tiles * KT of them, cut into G equal,
// contiguous ranges [g * TOTAL / G, (g + 1) * TOTAL / G): block g runs its range in order, so every block does
// the same work (to one k-tile) whatever the tile count.  A range crosses tile boundaries; each maximal piece of
// it inside one tile is a segment.
//
// gemm_nt_wgmma_streamk
//   grid     G blocks (one per SM of the H100 / H200) of 128 * (BM / 64) + 32 threads; roles as
//            gemm_nt_wgmma_tile.cake: math[BM / 64] warpgroups with wgmma m64nBNk16 into a 64 x BN f32
//            accumulator each; one load warp whose elected lane issues the TMA copies of A [BM, BK] and
//            B [BN, BK] per iteration into an S-stage ring (full[s]: 1 arrival + tx bytes; empty[s]: an elected
//            lane of every consumer warp once the wgmma group that read stage s retired).  The producer runs up to
//            S iterations ahead, across segment ends.
//   segment  at its last iteration the consumers drain (wgmma.wait 0) and store: a segment that is the whole
//   ends     tile (kt from 0 to KT - 1) goes to C in bf16; any other is a partial sum, stored in f32 to
//            W[g, slot] with slot 0 for the block's first segment and 1 for its last (a range holds at most
//            two partial segments: only its first may start inside a tile, only its last end inside one).
//            Plain stores, no atomics and no zeroed workspace.
//
// gemm_nt_streamk_fixup
//   grid     (tiles_n, tiles_m, BM * BN / (2 * RT)) blocks of RT threads: block (x, y, z) owns RT element pairs
//            of tile (y, x), one per thread, so every partial element is one independent load of one thread
//            (a block per tile looping over its elements was latency-bound: tens of dependent loads per thread).
//            A tile whose iterations one block ran whole is done (C written by that block).  Otherwise the
//            blocks g0 .. g1 whose ranges cover its iterations each left a partial in W[g, slot]; they are added
//            in block order (the result does not depend on timing) and stored to C in bf16, masked by C's dims.
//            A (its shape only) gives K.
//   traffic  a partial tile is read once per contributing block: for TOTAL >= G, at most two partials per block
//            per tile, so about 2 * G * BM * BN * 4 bytes in all - a few microseconds.
target sm_90a;

kernel gemm_nt_wgmma_streamk<BM = 128, BN = 128, BK = 64, S = 4, G = 132>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16),
    W: f32[G, 2, BM, BN] align(16))
  requires(K % 8 == 0, N % 2 == 0, cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) <= 16000000,
           cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) >= G, BM % 64 == 0, BM <= 128, BK * 2 == 128, BN % 16 == 0,
           BN <= 256, S >= 2, G >= 1, G <= 134)
  grid(G) threads(128 * (BM / 64) + 32)
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

  let g = i32(block.x);
  let tiles_n = cdiv(N, BN);
  let k_tiles = cdiv(K, BK);
  let total = cdiv(M, BM) * tiles_n * k_tiles;
  let first = i32(i64(g) * i64(total) / G);   // this block's iterations: first .. first + count - 1
  let count = i32(i64(g + 1) * i64(total) / G) - first;   // >= 1: total >= G

  role load = warp(2 * (BM / 32)) {
    elect {
      for j in 0..count {
        let it = first + j;
        let tile = it / k_tiles;
        let s = j % S;
        wait empty[s] parity(((j / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s] <- A[(tile / tiles_n) * BM, (it % k_tiles) * BK] signal(full[s]);
        tma.load b[s] <- B[(tile % tiles_n) * BN, (it % k_tiles) * BK] signal(full[s]);
      }
    }
  }

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for j in 0..count {
      let it = first + j;
      let tile = it / k_tiles;
      let kt = it % k_tiles;
      let s = j % S;
      wait full[s] parity((j / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;                      // the previous iteration's group is done: its stage can be refilled
      if j > 0 {
        elect {
          arrive empty[(j - 1) % S];
        }
      }
      if kt == k_tiles - 1 || j == count - 1 {   // the segment ends: drain, store, start over
        wgmma.wait 0;
        let row = 64 * math.index;
        if kt == k_tiles - 1 && it - kt >= first {   // the whole tile
          store C[(tile / tiles_n) * BM + row, (tile % tiles_n) * BN] <- bf16(acc);
        } else {
          store W[g, select(tile == first / k_tiles, 0, 1), row, 0] <- acc;
        }
        acc = 0.0;
      }
    }
    elect {
      arrive empty[(count - 1) % S];     // release the last stage too (keeps every phase balanced)
    }
  }
}

kernel gemm_nt_streamk_fixup<BM = 128, BN = 128, BK = 64, G = 132, RT = 256>(
    A: bf16[M, K],
    C: bf16[M, N] align(16),
    W: f32[G, 2, BM, BN] align(16))
  requires(N % 2 == 0, cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) <= 16000000, G >= 1, G <= 134, RT % 32 == 0,
           RT <= 1024, (BM * BN) % (2 * RT) == 0)
  grid(cdiv(N, BN), cdiv(M, BM), BM * BN / (2 * RT)) threads(RT)
{
  let tiles_n = cdiv(N, BN);
  let k_tiles = cdiv(K, BK);
  let total = cdiv(M, BM) * tiles_n * k_tiles;
  let tile = i32(block.y) * tiles_n + i32(block.x);
  let i0 = tile * k_tiles;                           // the tile's first and last iteration
  let i1 = i0 + k_tiles - 1;
  let g0 = i32((i64(i0 + 1) * G - 1) / i64(total));     // the blocks whose ranges hold them (block h's range
  let g1 = i32((i64(i1 + 1) * G - 1) / i64(total));     // starts at h * total / G)
  let p = 2 * (i32(block.z) * RT + i32(tid.x));
  let r = p / BN;
  let c = p % BN;
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;
  if g0 != g1 && r < M - m0 && c < N - n0 {
    var s0: f32 = 0.0;
    var s1: f32 = 0.0;
    for h in g0..g1 + 1 {
      let w = W[h, select(tile == i32(i64(h) * i64(total) / G) / k_tiles, 0, 1), r, c +: 2];
      s0 = s0 + w[0];
      s1 = s1 + w[1];
    }
    C[m0 + r, n0 + c +: 2] = bf16x2(s0, s1);
  }
}
