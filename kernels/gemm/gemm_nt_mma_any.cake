// gemm_nt_mma_any: C = A * B^T (bf16 in, f32 accumulation, bf16 out) on the tensor cores (mma.sync) for every
// shape: any M, N, K >= 1, no alignment beyond the element size.  The bf16 GEMM library's path for the shapes
// TMA cannot serve (K not a multiple of 8: A's and B's row strides are not 16-byte multiples; odd N: C's
// rows are not 4-byte aligned, so no bf16-pair stores), ahead of the SIMT fallback.
// A[M, K], B[N, K], C[M, N] row-major.
//
// Schedule
//   grid     (cdiv(N, BN), cdiv(M, BM)) blocks of 32 * (BM / WM) * (BN / WN) threads (8 warps with the
//            defaults); block (x, y) computes C[y*BM +: BM, x*BN +: BN], clipped at C's edges.
//   warps    warp w computes the WM x WN sub-tile at (w / (BN / WN), w % (BN / WN)) as (WM/16) x (WN/8)
//            mma.sync m16n8k16 tiles (64 x 32: 4 x 4 fragments, 64 f32 accumulator registers per thread).
//   memory   the rows of A and B may start at any 2-byte boundary, so global -> shared goes through
//            registers with plain 2-byte loads: thread t loads elements idx = v * threads + t
//            (row idx / BK, column idx % BK) of the [BM, BK] A tile and the [BN, BK] B tile - a warp reads
//            32 consecutive bf16 of one row (64 bytes, coalesced) - each masked by (row < M or N, k < K),
//            zero outside, so the ragged K tail and the edge tiles add nothing to the accumulators.
//            Shared tiles are double-buffered and padded by 8 bf16 per row (row stride (BK + 8) * 2 = 80
//            bytes, five 16-byte chunks: the 8 row addresses of an ldmatrix fall on distinct banks).
//   pipeline iteration kt: write the registers holding k-tile kt into stage kt % 2, syncthreads, issue the
//            global loads of k-tile kt + 1 into registers (in flight while the tensor cores run), then
//            BK / 16 k-steps of ldmatrix (A: .x4 per 16 x 16 block; B, stored [n][k] = the K-major layout
//            mma_b wants: .x4 without .trans for two n8 fragments) and mma.sync.  One barrier per k-tile:
//            stage kt % 2 is rewritten at kt + 2, after every warp passed the barrier of kt + 1, which
//            follows its reads at kt.
//   epilog   the accumulators go to a padded [BM, BN + 8] shared tile at their lane layout, then the
//            block writes its tile element by element (consecutive threads: consecutive columns of one
//            row), each store masked by row < M and column < N.
target sm_90;

kernel gemm_nt_mma_any<BM = 128, BN = 128, BK = 32, WM = 64, WN = 32>(
    A: bf16[M, K], B: bf16[N, K], C: bf16[M, N])
  requires(BM % WM == 0, BN % WN == 0, WM % 16 == 0, WN % 16 == 0, BK % 16 == 0,
           (BM * BK) % (32 * (BM / WM) * (BN / WN)) == 0,
           (BN * BK) % (32 * (BM / WM) * (BN / WN)) == 0,
           (BM * BN) % (32 * (BM / WM) * (BN / WN)) == 0)
  grid(cdiv(N, BN), cdiv(M, BM)) threads(32 * (BM / WM) * (BN / WN))
{
  shared sa: bf16[2][BM, BK + 8] align(128);
  shared sb: bf16[2][BN, BK + 8] align(128);
  shared cs: bf16[BM, BN + 8] align(128);

  let t = i32(tid.x);
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;
  let wm = warp / (BN / WN);
  let wn = warp % (BN / WN);
  let kt_count = cdiv(K, BK);

  var acc: frag<mma_c, f32, 16, 8, 16>[WM / 16][WN / 8] = 0.0;
  var af: frag<mma_a, bf16, 16, 8, 16>[WM / 16];
  var bf: frag<mma_b, bf16, 16, 8, 16>[WN / 8];
  var ra: bf16[(BM * BK) / (32 * (BM / WM) * (BN / WN))];
  var rb: bf16[(BN * BK) / (32 * (BM / WM) * (BN / WN))];

  // k-tile 0 into registers
  for v in 0..(BM * BK) / (32 * (BM / WM) * (BN / WN)) unroll {
    let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
    let r = idx / BK;
    let c = idx % BK;
    ra[v] = bf16(0.0);
    if m0 + r < M && c < K {
      ra[v] = A[m0 + r, c];
    }
  }
  for v in 0..(BN * BK) / (32 * (BM / WM) * (BN / WN)) unroll {
    let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
    let r = idx / BK;
    let c = idx % BK;
    rb[v] = bf16(0.0);
    if n0 + r < N && c < K {
      rb[v] = B[n0 + r, c];
    }
  }

  for kt in 0..kt_count {
    let s = kt % 2;
    for v in 0..(BM * BK) / (32 * (BM / WM) * (BN / WN)) unroll {
      let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
      sa[s][idx / BK, idx % BK] = ra[v];
    }
    for v in 0..(BN * BK) / (32 * (BM / WM) * (BN / WN)) unroll {
      let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
      sb[s][idx / BK, idx % BK] = rb[v];
    }
    syncthreads;

    // k-tile kt + 1 into registers while this one is multiplied
    let k1 = (kt + 1) * BK;
    if kt + 1 < kt_count {
      for v in 0..(BM * BK) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / BK;
        let c = idx % BK;
        ra[v] = bf16(0.0);
        if m0 + r < M && k1 + c < K {
          ra[v] = A[m0 + r, k1 + c];
        }
      }
      for v in 0..(BN * BK) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / BK;
        let c = idx % BK;
        rb[v] = bf16(0.0);
        if n0 + r < N && k1 + c < K {
          rb[v] = B[n0 + r, k1 + c];
        }
      }
    }

    for kk in 0..BK / 16 unroll {
      for i in 0..WM / 16 unroll {
        ldmatrix af[i] <- sa[s][wm * WM + i * 16 + lane % 16, kk * 16 + (lane / 16) * 8 +: 8];
      }
      // matrices: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15)
      for j in 0..WN / 8 step 2 unroll {
        ldmatrix bf[j], bf[j + 1] <- sb[s][wn * WN + j * 8 + (lane / 16) * 8 + lane % 8, kk * 16 + ((lane / 8) % 2) * 8 +: 8];
      }
      for i in 0..WM / 16 unroll {
        for j in 0..WN / 8 unroll {
          mma.sync acc[i][j] += af[i] * bf[j];
        }
      }
    }
  }

  // epilogue: accumulators -> shared tile -> masked element stores
  for i in 0..WM / 16 unroll {
    for j in 0..WN / 8 unroll {
      store cs[wm * WM + i * 16, wn * WN + j * 8] <- bf16(acc[i][j]);
    }
  }
  syncthreads;
  for v in 0..(BM * BN) / (32 * (BM / WM) * (BN / WN)) unroll {
    let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
    let rr = idx / BN;
    let cc = idx % BN;
    if m0 + rr < M && n0 + cc < N {
      C[m0 + rr, n0 + cc] = cs[rr, cc];
    }
  }
}
