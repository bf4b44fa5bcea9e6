// simt_gemm: C = A * B in f32 on the CUDA cores (no tensor cores).  A[M, K], B[K, N], C[M, N] row-major.
//
// Schedule
//   grid    (cdiv(N, BN), cdiv(M, BM)) blocks; block (x, y) computes the tile C[y*BM +: BM, x*BN +: BN]
//           (clipped to C at the right and bottom edges).
//   block   (BM / TM) * (BN / TN) threads (256 with the defaults), arranged as a (BM/TM) x (BN/TN) grid
//           (ty, tx); each thread accumulates a TM x TN micro-tile in registers (acc).
//   k loop  for each of the cdiv(K, BK) k-tiles of BK columns (the last one partial when K % BK != 0):
//             global -> registers -> shared: the A tile [BM, BK] is read as f32x4 vectors along K and
//             stored transposed into sa[BK, BM + 4] so that the inner loop reads A along M as vectors;
//             the B tile [BK, BN] is copied as f32x4 vectors into sb[BK, BN]; on edge tiles the vectors
//             outside A / B are zeros (each load runs under `whole || inside`, whole: an interior block's
//             whole k-tile, uniform; inside: the vector lies in the tensor);
//             syncthreads  (tile complete)
//             BK rank-1 updates: per kk, the thread loads TM values of A and TN values of B from shared
//             (f32x4 reads) into a_reg / b_reg and does TM * TN fma;
//             syncthreads  (everyone done reading before the next tile overwrites sa / sb)
//   layout  a thread's TM rows are TM/4 groups of 4 consecutive rows, groups BM*4/TM rows apart
//           (rows g*(BM*4/TM) + ty*4 + i); same for columns.  So the 8 threads of a quarter-warp read 128
//           contiguous bytes of sb per f32x4 access (no bank conflicts), and sa reads are broadcasts.
//           sa rows are padded by 4 floats: the transposed stores of the two threads sharing an A row then
//           hit banks 16 apart instead of colliding; 4 floats keep the f32x4 reads 16-byte aligned.
//   epilog  each thread writes its micro-tile as f32x4 vector stores, those of rows >= M or columns >= N
//           masked.
//   shape   requires N % 4 == 0 and K % 4 == 0 (f32x4 vectors of whole rows, 16-byte aligned by align(16));
//           M is arbitrary.  The edge tests cost 12 instructions per k-tile (see cost), under 2%.
//   cost    per k-tile: BM*BN*BK fma against (BM + BN)*BK*4 bytes of global reads; TM = TN = 8 gives 64 fma
//           per 16 shared bytes read per thread.  SASS (sm_90, ptxas 13.0, defaults) per k-tile: 512 FFMA + 82
//           other, 127 registers, no spills (whole-tile-only version: 512 + 70; the edge tests add 12).
target sm_80;

kernel simt_gemm<BM = 128, BN = 128, BK = 8, TM = 8, TN = 8>(
    A: f32[M, K] align(16), B: f32[K, N] align(16), C: f32[M, N] align(16))
  requires(N % 4 == 0, K % 4 == 0,
           TM % 4 == 0, TN % 4 == 0, BK % 4 == 0,
           (BM * BK / 4) % ((BM / TM) * (BN / TN)) == 0,
           (BK * BN / 4) % ((BM / TM) * (BN / TN)) == 0)
  grid(cdiv(N, BN), cdiv(M, BM)) threads((BM / TM) * (BN / TN))
{
  shared sa: f32[BK, BM + 4] align(16);     // A tile, transposed (k-major), padded
  shared sb: f32[BK, BN] align(16);         // B tile

  let t = i32(tid.x);
  let ty = t / (BN / TN);
  let tx = t % (BN / TN);
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;

  var acc: f32[TM, TN];
  var a_reg: f32[TM];
  var b_reg: f32[TN];
  for i in 0..TM unroll {
    for j in 0..TN unroll {
      acc[i, j] = 0.0;
    }
  }

  let interior = m0 <= M - BM && n0 <= N - BN;   // the block's C tile lies inside C
  for kt in 0..cdiv(K, BK) {
    let k0 = kt * BK;
    let whole = interior && k0 <= K - BK;         // no element of this k-tile's A / B tiles is outside A / B

    // global -> shared.  A: BM*BK/4 vectors, BK/4 per row; B: BK*BN/4 vectors, BN/4 per row.  Vectors
    // outside A / B (edge tiles only; K % 4 == N % 4 == 0, so a vector is wholly inside or outside) are zeros.
    for v in 0..(BM * BK / 4) / ((BM / TM) * (BN / TN)) unroll {
      let idx = v * ((BM / TM) * (BN / TN)) + t;
      let ar = idx / (BK / 4);
      let ac = (idx % (BK / 4)) * 4;
      var a4: f32x4 = 0.0;
      if whole || m0 + ar < M && k0 + ac < K {
        a4 = A[m0 + ar, k0 + ac +: 4];
      }
      for e in 0..4 unroll {
        sa[ac + e, ar] = a4[e];              // transpose into k-major
      }
    }
    for v in 0..(BK * BN / 4) / ((BM / TM) * (BN / TN)) unroll {
      let idx = v * ((BM / TM) * (BN / TN)) + t;
      let br = idx / (BN / 4);
      let bc = (idx % (BN / 4)) * 4;
      var b4: f32x4 = 0.0;
      if whole || k0 + br < K && n0 + bc < N {
        b4 = B[k0 + br, n0 + bc +: 4];
      }
      sb[br, bc +: 4] = b4;
    }
    syncthreads;

    for kk in 0..BK unroll {
      for g in 0..TM / 4 unroll {
        let av = sa[kk, g * (BM * 4 / TM) + ty * 4 +: 4];
        for e in 0..4 unroll {
          a_reg[g * 4 + e] = av[e];
        }
      }
      for g in 0..TN / 4 unroll {
        let bv = sb[kk, g * (BN * 4 / TN) + tx * 4 +: 4];
        for e in 0..4 unroll {
          b_reg[g * 4 + e] = bv[e];
        }
      }
      for i in 0..TM unroll {
        for j in 0..TN unroll {
          acc[i, j] = fma(a_reg[i], b_reg[j], acc[i, j]);
        }
      }
    }
    syncthreads;
  }

  // epilogue: TM/4 * TN/4 blocks of 4x4, each row written as one f32x4
  for gi in 0..TM / 4 unroll {
    for i in 0..4 unroll {
      let row = m0 + gi * (BM * 4 / TM) + ty * 4 + i;
      for gj in 0..TN / 4 unroll {
        var out: f32x4;
        for e in 0..4 unroll {
          out[e] = acc[gi * 4 + i, gj * 4 + e];
        }
        let col = n0 + gj * (BN * 4 / TN) + tx * 4;
        if row < M && col < N {
          C[row, col +: 4] = out;
        }
      }
    }
  }
}
