// gemm_nt_wgmma_decode: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a, for decode shapes - a few
// rows of A (tokens) against a large B (weights): the wgmma operands are swapped, so B fills the instruction's
// 64 rows and the MT (8..64) token rows of A are its N dimension, and the block computes the transposed tile
// C^T[n0 +: 64, m0 +: MT].  Compared with a 64-row A tile (kernels/gemm/gemm_nt_wgmma_tile.cake with BM = 64)
// a block reads MT instead of 64 rows of A per k-tile from shared memory and L2, for 64 instead of BN columns.
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major.  Any M, N (odd N included: the
// epilogue stores single elements) with K % 8 == 0 (TMA needs 16-byte row strides).
//
// Schedule
//   grid     (cdiv(N, 64), cdiv(M, MT)) blocks of 160 threads: block (x, y) computes C[y*MT +: MT, x*64 +: 64].
//   roles    math = warpgroup 0: wgmma m64nMTk16, acc[i, j] += B[n0 + i, k] * A[m0 + j, k] (the shared B tile
//            is the A operand, the shared A tile read transposed the B operand), a 64 x MT f32 accumulator;
//            load = warp 4: an elected lane issues the TMA copies of B [64, BK] and A [MT, BK] per k-tile
//            into an S-stage ring (TMA zero-fills rows past M and N and the K tail).  No regs(..) budgets:
//            a few dozen registers, several blocks per SM.
//   barriers full[s] (1 arrival, expect_tx((64 + MT) * BK * 2)), empty[s] (4 arrivals: an elected lane of
//            each math warp once the wgmma group that read stage s completed); k-tile k uses stage k % S,
//            consumers wait parity (k / S) & 1, the producer (k / S + 1) & 1; one wgmma group in flight.
//   epilog   the math warpgroup stores bf16(acc) into the padded shared tile cs[64, MT + 8]; after the
//            roles, `syncthreads`, then all 160 threads write C[m0 + j, n0 + i] = cs[i, j], consecutive
//            threads on consecutive columns i of one row of C (coalesced), each masked by row < M and
//            column < N.
//   smem     S * (64 + MT) * BK * 2 + 64 * (MT + 8) * 2 bytes: MT = 16, S = 8: 80 KB + 3 KB.
//   split-K  gemm_nt_wgmma_decode_splitk_partial (after this kernel) is its split-K form; the two share the
//            producer and math loops (fn produce_k_tiles, consume_k_tiles at the end of the file).
target sm_90a;

kernel gemm_nt_wgmma_decode<MT = 16, BK = 64, S = 8>(
    A: bf16[M, K] tma(box=[MT, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[64, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(K % 8 == 0, MT % 8 == 0, MT <= 64, BK * 2 == 128, S >= 2)
  grid(cdiv(N, 64), cdiv(M, MT)) threads(160)
{
  shared a: bf16[S][MT, BK] swizzle(128B) align(1024);
  shared b: bf16[S][64, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  shared cs: bf16[64, MT + 8] align(128);   // the transposed tile, for the epilogue

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n0 = i32(block.x) * 64;
  let m0 = i32(block.y) * MT;
  let k_tiles = cdiv(K, BK);

  role load = warp(4) {
    produce_k_tiles(0, k_tiles, m0, n0);
  }

  role math = warpgroup(0) {
    var acc: frag<wgmma_acc, f32, 64, MT, 16> = 0.0;
    consume_k_tiles(acc, k_tiles);
    store cs[0, 0] <- bf16(acc);
  }

  // every warp: C[m0 + j, n0 + i] = cs[i, j], masked by C's dims
  syncthreads;
  let t = i32(tid.x);
  for v in 0..cdiv(64 * MT, 160) unroll {
    let idx = v * 160 + t;
    let i = idx % 64;
    let j = idx / 64;
    if idx < 64 * MT {
      let x = cs[i, j];                  // read unconditionally: the shape decides only the global store
      if j < M - m0 && i < N - n0 {
        C[m0 + j, n0 + i] = x;
      }
    }
  }
}

// The split-K form (a library variant with kernels/gemm/gemm_nt_splitk_reduce.cake after it): a few token rows
// against a weight matrix with few 64-row tiles (8 x 4096 x 4096: 64 blocks for 132 SMs) streams B with more
// blocks.  Block (x, y, z) computes the transposed tile over k-tiles [z KT / SPLITS, (z + 1) KT / SPLITS) as
// above and writes its f32 product to W[z, y*MT +: MT, x*64 +: 64] through the shared tile (coalesced along
// N, masked by W's dims).
kernel gemm_nt_wgmma_decode_splitk_partial<MT = 16, BK = 64, S = 8, SPLITS = 2>(
    A: bf16[M, K] tma(box=[MT, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[64, BK], swizzle=128B) align(16),
    W: f32[SPLITS, M, N] align(16))
  requires(K % 8 == 0, MT % 8 == 0, MT <= 64, BK * 2 == 128, S >= 2, cdiv(K, BK) >= SPLITS, SPLITS >= 1)
  grid(cdiv(N, 64), cdiv(M, MT), SPLITS) threads(160)
{
  shared a: bf16[S][MT, BK] swizzle(128B) align(1024);
  shared b: bf16[S][64, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  shared cs: f32[64, MT + 4] align(128);   // the transposed f32 tile, for the epilogue

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let n0 = i32(block.x) * 64;
  let m0 = i32(block.y) * MT;
  let z = i32(block.z);
  let k_tiles = cdiv(K, BK);
  let k_first = z * k_tiles / SPLITS;                  // this block's slice of the k-tiles
  let k_count = (z + 1) * k_tiles / SPLITS - k_first;  // >= 1: k_tiles >= SPLITS

  role load = warp(4) {
    produce_k_tiles(k_first, k_count, m0, n0);
  }

  role math = warpgroup(0) {
    var acc: frag<wgmma_acc, f32, 64, MT, 16> = 0.0;
    consume_k_tiles(acc, k_count);
    store cs[0, 0] <- acc;
  }

  // every warp: W[z, m0 + j, n0 + i] = cs[i, j], masked by W's dims
  syncthreads;
  let t = i32(tid.x);
  for v in 0..cdiv(64 * MT, 160) unroll {
    let idx = v * 160 + t;
    let i = idx % 64;
    let jj = idx / 64;
    if idx < 64 * MT {
      let x = cs[i, jj];
      if jj < M - m0 && i < N - n0 {
        W[z, m0 + jj, n0 + i] = x;
      }
    }
  }
}

// The producer warp's loop (the calling kernel's `load` role, rings `a`, `b`, barriers `full`, `empty`): an
// elected lane issues the TMA copies of k-tiles k_first .. k_first + k_count - 1 of B's rows n0 +: 64 and A's rows
// m0 +: MT, the j-th into stage j % S.
fn produce_k_tiles(k_first: i32, k_count: i32, m0: i32, n0: i32) {
  elect {
    for j in 0..k_count {
      let s = j % S;
      wait empty[s] parity(((j / S) & 1) ^ 1);
      arrive full[s] expect_tx((64 + MT) * BK * 2);
      tma.load b[s] <- B[n0, (k_first + j) * BK] signal(full[s]);
      tma.load a[s] <- A[m0, (k_first + j) * BK] signal(full[s]);
    }
  }
}

// The math warpgroup's loop: k_count k-tiles from the ring into the transposed accumulator (the B tile is the
// A operand), one wgmma group in flight, each stage released once the group that read it has completed - the
// last one too, which keeps every phase balanced.
fn consume_k_tiles(var acc: frag<wgmma_acc, f32, 64, MT, 16>, k_count: i32) {
  for j in 0..k_count {
    let s = j % S;
    wait full[s] parity((j / S) & 1);
    wgmma.fence;
    wgmma acc += b[s] * a[s].T;
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
