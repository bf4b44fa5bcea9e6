// gemm_nt_wgmma_anyk: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a with any M, N, K: the
// bf16 GEMM library's tensor-core path for K % 8 != 0, where A's and B's rows start at 2-byte boundaries, so
// neither TMA (16-byte row strides) nor cp.async (4-byte sources at least) can load them.  The wgmma
// schedule of kernels/gemm/gemm_nt_wgmma_tile.cake (read its header for the consumers and the ring) with a
// producer that loads through registers, and the element-wise epilogue of gemm_nt_wgmma_anyn.cake (odd N).
// A[M, K], B[N, K], C[M, N] row-major.  gemm_nt_wgmma_anyk_splitk_partial (after the main kernel) is its
// split-K form, gemm_nt_wgmma_anyk_decode_partial its decode form; the producer loop (fn produce_k_tiles) is
// written once for the three, the consumer loop (fn consume_k_tiles) for the first two.
//
// Schedule
//   grid     (cdiv(N, BN), cdiv(M, BM)) blocks of 128 * (BM / 64) + 128 * P threads; block (x, y) computes
//            C[y*BM +: BM, x*BN +: BN].
//   roles    math[BM / 64] = warpgroups 0..: instance i computes rows 64*i +: 64 of the tile with wgmma
//            m64nBNk16; load[P] = the P warpgroups after them: lane l of producer warp w (0 .. 4 P - 1) owns
//            columns l and l + 32 of rows w + 4 P v of the [BM, BK] A tile and the [BN, BK] B tile (a warp
//            reads 32 consecutive bf16 of a row, 64 bytes, coalesced; a thread needs one address per row),
//            loaded with 2-byte loads at clamped indices, zero outside (row >= M or N, k >= K) - so ragged
//            edges and the K tail add nothing - and stored into the 128B-swizzled stage the wgmma reads.
//            With VW = 2 or 4 (K % VW == 0, A and B VW * 2-byte aligned: so are their rows) lane l owns VW
//            consecutive columns instead (a warp reads one whole 128-byte row for VW = 2, two for
//            VW = 4): one VW-wide load and store per row slot, 1 / VW of the memory instructions, which bound
//            this producer.
//   pipeline the producer loads k-tile 0 into registers; iteration k waits for stage k % S to be empty,
//            stores the registers there, fences them for the async proxy (`fence.proxy_async`: wgmma reads
//            shared memory through it), arrives on full[s], then loads k-tile k + 1 (load_k_tile) - those
//            loads are in flight while it waits for the next stage.
//   barriers full[s]  (128 P arrivals): every producer thread, after its stores and its proxy fence.
//            empty[s] (4 arrivals per consumer warpgroup): an elected lane of every consumer warp once the
//                     wgmma group that read stage s has completed; parities as in the tile kernel.
//   epilog   each consumer warpgroup stores its accumulator as bf16 into its band of the padded tile
//            cs[BM, BN + 8]; after a syncthreads every thread writes the tile to C element by element, masked
//            by C's dims (any N: no bf16-pair stores).
//   smem     S * (BM + BN) * BK * 2 + BM * (BN + 8) * 2 bytes (128 x 128, S = 4: 128 KB + 34 KB).
target sm_90a;

kernel gemm_nt_wgmma_anyk<BM = 128, BN = 128, BK = 64, S = 4, P = 2, VW = 1>(
    A: bf16[M, K] align(2 * VW), B: bf16[N, K] align(2 * VW), C: bf16[M, N])
  requires(VW == 1 || (VW == 2 || VW == 4) && K % VW == 0, BM % 64 == 0, BM <= 128, BK * 2 == 128, BN % 16 == 0,
           BN <= 256, S >= 2, P >= 1, BM % (2 * P * max(VW, 2)) == 0, BN % (2 * P * max(VW, 2)) == 0)
  grid(cdiv(N, BN), cdiv(M, BM)) threads(128 * (BM / 64) + 128 * P)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(128 * P);
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

  role load[P] = warpgroups(BM / 64..BM / 64 + P) {
    produce_k_tiles(0, k_tiles, m0, n0);
  }

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    consume_k_tiles(acc, k_tiles);
    store cs[64 * math.index, 0] <- bf16(acc);
  }

  // every thread, the producers' included: the tile from cs to C, element by element, masked by C's dims
  syncthreads;
  let t = i32(tid.x);
  for v in 0..cdiv(BM * BN, 128 * (BM / 64) + 128 * P) unroll {
    let idx = v * (128 * (BM / 64) + 128 * P) + t;
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

// The split-K partial kernel for K % 8 != 0 (a library variant with kernels/gemm/gemm_nt_splitk_reduce.cake
// after it): block (x, y, z) computes tile (y, x) over k-tiles [z KT / SPLITS, (z + 1) KT / SPLITS) with the
// producers and consumers above and stores the f32 accumulator to W[z, y*BM +: BM, x*BN +: BN] (masked by W's
// dims; f32 pairs, so N even).  For shapes with few output tiles: 64 x 4096 x 4100 has 64 tiles of 64 x 64.
kernel gemm_nt_wgmma_anyk_splitk_partial<BM = 64, BN = 64, BK = 64, S = 4, P = 1, SPLITS = 2, VW = 1>(
    A: bf16[M, K] align(2 * VW), B: bf16[N, K] align(2 * VW), W: f32[SPLITS, M, N] align(16))
  requires(VW == 1 || (VW == 2 || VW == 4) && K % VW == 0, N % 2 == 0, cdiv(K, BK) >= SPLITS, SPLITS >= 1,
           BM % 64 == 0, BM <= 128, BK * 2 == 128, BN % 16 == 0, BN <= 256, S >= 2, P >= 1,
           BM % (2 * P * max(VW, 2)) == 0, BN % (2 * P * max(VW, 2)) == 0)
  grid(cdiv(N, BN), cdiv(M, BM), SPLITS) threads(128 * (BM / 64) + 128 * P)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(128 * P);
  mbarrier empty[S] arrivals(4 * (BM / 64));

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n0 = i32(block.x) * BN;
  let m0 = i32(block.y) * BM;
  let z = i32(block.z);
  let k_tiles = cdiv(K, BK);
  let k_first = z * k_tiles / SPLITS;                  // this block's slice of the k-tiles
  let k_count = (z + 1) * k_tiles / SPLITS - k_first;  // >= 1: k_tiles >= SPLITS

  role load[P] = warpgroups(BM / 64..BM / 64 + P) {
    produce_k_tiles(k_first, k_count, m0, n0);
  }

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    consume_k_tiles(acc, k_count);
    store W[z, m0 + 64 * math.index, n0] <- acc;
  }
}

// The decode form for K % 8 != 0 (a library variant with kernels/gemm/gemm_nt_splitk_reduce.cake after it): a few
// token rows of A against a large B, with the operands swapped as in kernels/gemm/gemm_nt_wgmma_decode.cake - the
// B tile fills wgmma's 64 rows (BN == 64), the BM (8..64) token rows of A are its N dimension - and the
// producers above, which load A's BM rows and B's 64 rows of each k-tile through registers.  Block (x, y, z)
// computes the transposed tile C^T[x*64 +: 64, y*BM +: BM] over k-tiles [z KT / SPLITS, (z + 1) KT / SPLITS) and
// writes its f32 product to W[z, y*BM +: BM, x*64 +: 64] through the shared tile (consecutive threads on
// consecutive columns, masked by W's dims: any N).  Against the 64-row tile above it loads BM instead of 64 rows
// of A per k-tile; the split streams B with more blocks where its 64-row tiles are few (8 x 2151 x 9153: 34).
kernel gemm_nt_wgmma_anyk_decode_partial<BM = 16, BN = 64, BK = 64, S = 4, P = 1, SPLITS = 2, VW = 1>(
    A: bf16[M, K] align(2 * VW), B: bf16[N, K] align(2 * VW), W: f32[SPLITS, M, N] align(16))
  requires(VW == 1 || (VW == 2 || VW == 4) && K % VW == 0, BN == 64, BM % 8 == 0, BM <= 64, BK * 2 == 128, S >= 2,
           P >= 1, BM % (2 * P * max(VW, 2)) == 0, BN % (2 * P * max(VW, 2)) == 0, cdiv(K, BK) >= SPLITS,
           SPLITS >= 1)
  grid(cdiv(N, 64), cdiv(M, BM), SPLITS) threads(128 + 128 * P)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][64, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(128 * P);
  mbarrier empty[S] arrivals(4);
  shared cs: f32[64, BM + 4] align(128);   // the transposed f32 tile, for the epilogue

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n0 = i32(block.x) * 64;
  let m0 = i32(block.y) * BM;
  let z = i32(block.z);
  let k_tiles = cdiv(K, BK);
  let k_first = z * k_tiles / SPLITS;                  // this block's slice of the k-tiles
  let k_count = (z + 1) * k_tiles / SPLITS - k_first;  // >= 1: k_tiles >= SPLITS

  role load[P] = warpgroups(1..1 + P) {
    produce_k_tiles(k_first, k_count, m0, n0);
  }

  role math = warpgroup(0) {
    var acc: frag<wgmma_acc, f32, 64, BM, 16> = 0.0;
    for j in 0..k_count {
      let s = j % S;
      wait full[s] parity((j / S) & 1);
      wgmma.fence;
      wgmma acc += b[s] * a[s].T;
      wgmma.commit;
      wgmma.wait 1;
      if j > 0 {
        elect {
          arrive empty[(j - 1) % S];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_count - 1) % S];
    }
    store cs[0, 0] <- acc;
  }

  // every thread, the producers' included: W[z, m0 + j, n0 + i] = cs[i, j], masked by W's dims
  syncthreads;
  let t = i32(tid.x);
  for v in 0..cdiv(64 * BM, 128 + 128 * P) unroll {
    let idx = v * (128 + 128 * P) + t;
    let i = idx % 64;
    let jj = idx / 64;
    if idx < 64 * BM {
      let x = cs[i, jj];
      if jj < M - m0 && i < N - n0 {
        W[z, m0 + jj, n0 + i] = x;
      }
    }
  }
}

// The consumer warpgroups' loop (a math[BM / 64] role of the calling kernel; instance i computes rows 64 i +: 64 of
// the tile): k_count k-tiles from the ring into `acc`, one wgmma group in flight, each stage released once the
// group that read it has completed - the last one too, which keeps every phase balanced.
fn consume_k_tiles(var acc: frag<wgmma_acc, f32, 64, BN, 16>, k_count: i32) {
  for j in 0..k_count {
    let s = j % S;
    wait full[s] parity((j / S) & 1);
    wgmma.fence;
    wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
    wgmma.commit;
    wgmma.wait 1;                      // k-tile j-1's group is done: its stage can be refilled
    if j > 0 {
      elect {
        arrive empty[(j - 1) % S];
      }
    }
  }
  wgmma.wait 0;
  elect {
    arrive empty[(k_count - 1) % S];
  }
}

// The producer warpgroups' loop (a load[P] role of the calling kernel, with its rings `a`, `b` and barriers `full`,
// `empty`): k-tiles k_first .. k_first + k_count - 1 of A's rows m0 +: BM and B's rows n0 +: BN into the ring, the
// j-th into stage j % S.  Each producer thread holds BM / (2 P) elements of the A tile and BN / (2 P) of the B tile
// (64 columns over 128 P threads), in slots of its rows: with VW = 1 lane l of producer warp w owns columns l and
// l + 32 of rows w + 4 P v (one address per row, the second column 64 bytes further); with VW = 2 or 4 lane l owns
// the VW columns (l % LR) VW +: VW of row (w + 4 P v) (32 / LR) + l / LR, LR = 64 / VW lanes per row - one VW-wide
// load and store per slot.  Each k-tile is loaded into registers while the previous one's stage is awaited,
// stored, fenced for the async proxy and signalled.
fn produce_k_tiles(k_first: i32, k_count: i32, m0: i32, n0: i32) {
  let col = load.thread % 32;
  let row = load.index * 4 + load.warp;
  var ra: bf16[BM / (2 * P)];
  var rb: bf16[BN / (2 * P)];
  load_k_tile(ra, rb, k_first, m0, n0, row, col);
  for j in 0..k_count {
    let s = j % S;
    wait empty[s] parity(((j / S) & 1) ^ 1);
    if VW == 1 {
      for v in 0..BM / (4 * P) unroll {
        for c in 0..2 unroll {
          a[s][row + 4 * P * v, col + 32 * c] = ra[2 * v + c];
        }
      }
      for v in 0..BN / (4 * P) unroll {
        for c in 0..2 unroll {
          b[s][row + 4 * P * v, col + 32 * c] = rb[2 * v + c];
        }
      }
    } else {
      let lr = 64 / VW;                  // lanes per row
      let slot_row = (row * 32 / lr) + col / lr;
      let slot_col = col % lr * VW;
      for v in 0..BM / (2 * P * VW) unroll {
        let r = slot_row + 4 * P * v * (32 / lr);
        if VW == 2 {
          a[s][r, slot_col +: 2] = bf16x2(ra[2 * v], ra[2 * v + 1]);
        } else {
          a[s][r, slot_col +: 4] = bf16x4(ra[4 * v], ra[4 * v + 1], ra[4 * v + 2], ra[4 * v + 3]);
        }
      }
      for v in 0..BN / (2 * P * VW) unroll {
        let r = slot_row + 4 * P * v * (32 / lr);
        if VW == 2 {
          b[s][r, slot_col +: 2] = bf16x2(rb[2 * v], rb[2 * v + 1]);
        } else {
          b[s][r, slot_col +: 4] = bf16x4(rb[4 * v], rb[4 * v + 1], rb[4 * v + 2], rb[4 * v + 3]);
        }
      }
    }
    fence.proxy_async;                 // the stores (generic proxy) before wgmma's reads (async proxy)
    arrive full[s];
    if j + 1 < k_count {
      load_k_tile(ra, rb, k_first + j + 1, m0, n0, row, col);   // in flight while the next stage is awaited
    }
  }
}

// The producer thread's elements of k-tile k (slots as in produce_k_tiles) of the A tile at row m0 and the B tile
// at row n0.  Branch-free: every load is in bounds (indices clamped), an element outside A or B is zero; with
// VW > 1, K % VW == 0 keeps each vector wholly inside or wholly outside its row.
fn load_k_tile(var ra: bf16[BM / (2 * P)], var rb: bf16[BN / (2 * P)], k: i32, m0: i32, n0: i32, row: i32,
               col: i32) {
  if VW == 1 {
    for j in 0..2 unroll {
      let kc = k * BK + col + 32 * j;
      let kc_in = kc < K;
      let kc_load = min(kc, K - 1);
      for v in 0..BM / (4 * P) unroll {
        let r = m0 + row + 4 * P * v;
        ra[2 * v + j] = select(r < M && kc_in, A[min(r, M - 1), kc_load], bf16(0.0));
      }
      for v in 0..BN / (4 * P) unroll {
        let r = n0 + row + 4 * P * v;
        rb[2 * v + j] = select(r < N && kc_in, B[min(r, N - 1), kc_load], bf16(0.0));
      }
    }
  } else {
    let lr = 64 / VW;
    let slot_row = (row * 32 / lr) + col / lr;
    let kc = k * BK + col % lr * VW;
    let kc_in = kc < K;
    let kc_load = min(kc, K - VW);
    // The slices say max(VW, 2) (= VW here) so that they are legal in the VW = 1 build, which never runs them.
    for v in 0..BM / (2 * P * VW) unroll {
      let r = m0 + slot_row + 4 * P * v * (32 / lr);
      let x = A[min(r, M - 1), kc_load +: max(VW, 2)];
      for c in 0..VW unroll {
        ra[VW * v + c] = select(r < M && kc_in, x[c], bf16(0.0));
      }
    }
    for v in 0..BN / (2 * P * VW) unroll {
      let r = n0 + slot_row + 4 * P * v * (32 / lr);
      let x = B[min(r, N - 1), kc_load +: max(VW, 2)];
      for c in 0..VW unroll {
        rb[VW * v + c] = select(r < N && kc_in, x[c], bf16(0.0));
      }
    }
  }
}
