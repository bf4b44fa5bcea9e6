// simt_gemm: C = A * B in f32 on the CUDA cores (no tensor cores).  A[M, K], B[K, N], C[M, N] row-major.
//
// Schedule
//   grid    (N / BN, M / BM) blocks; block (x, y) computes the tile C[y*BM +: BM, x*BN +: BN].
//   block   (BM / TM) * (BN / TN) threads (256 with the defaults), arranged as a (BM/TM) x (BN/TN) grid
//           (ty, tx); each thread accumulates a TM x TN micro-tile in registers (acc).
//   k loop  for each k-tile of BK columns:
//             global -> registers -> shared: the A tile [BM, BK] is read as f32x4 vectors along K and
//             stored transposed into sa[BK, BM + 4] so that the inner loop reads A along M as vectors;
//             the B tile [BK, BN] is copied as f32x4 vectors into sb[BK, BN];
//             syncthreads  (tile complete)
//             BK rank-1 updates: per kk, the thread loads TM values of A and TN values of B from shared
//             (f32x4 reads) into a_reg / b_reg and does TM * TN fma;
//             syncthreads  (everyone done reading before the next tile overwrites sa / sb)
//   layout  a thread's TM rows are TM/4 groups of 4 consecutive rows, groups BM*4/TM rows apart
//           (rows g*(BM*4/TM) + ty*4 + i); same for columns.  So the 8 threads of a quarter-warp read 128
//           contiguous bytes of sb per f32x4 access (no bank conflicts), and sa reads are broadcasts.
//           sa rows are padded by 4 floats: the transposed stores of the two threads sharing an A row then
//           hit banks 16 apart instead of colliding; 4 floats keep the f32x4 reads 16-byte aligned.
//   epilog  each thread writes its micro-tile as f32x4 vector stores.
//   shape   requires M % BM, N % BN, K % BK == 0 (no edge masking in this sample).
//   cost    per k-tile: BM*BN*BK fma against (BM + BN)*BK*4 bytes of global reads; TM = TN = 8 gives 64 fma
//           per 16 shared bytes read per thread.
target sm_80;

kernel simt_gemm<BM = 128, BN = 128, BK = 8, TM = 8, TN = 8>(
    A: f32[M, K] align(16), B: f32[K, N] align(16), C: f32[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0,
           TM % 4 == 0, TN % 4 == 0, BK % 4 == 0,
           (BM * BK / 4) % ((BM / TM) * (BN / TN)) == 0,
           (BK * BN / 4) % ((BM / TM) * (BN / TN)) == 0)
  grid(N / BN, M / BM) threads((BM / TM) * (BN / TN))
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

  for kt in 0..K / BK {
    let k0 = kt * BK;

    // global -> shared.  A: BM*BK/4 vectors, BK/4 per row; B: BK*BN/4 vectors, BN/4 per row.
    for v in 0..(BM * BK / 4) / ((BM / TM) * (BN / TN)) unroll {
      let idx = v * ((BM / TM) * (BN / TN)) + t;
      let ar = idx / (BK / 4);
      let ac = (idx % (BK / 4)) * 4;
      let a4 = A[m0 + ar, k0 + ac +: 4];     // f32x4
      for e in 0..4 unroll {
        sa[ac + e, ar] = a4[e];              // transpose into k-major
      }
    }
    for v in 0..(BK * BN / 4) / ((BM / TM) * (BN / TN)) unroll {
      let idx = v * ((BM / TM) * (BN / TN)) + t;
      let br = idx / (BN / 4);
      let bc = (idx % (BN / 4)) * 4;
      sb[br, bc +: 4] = B[k0 + br, n0 + bc +: 4];
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
        C[row, n0 + gj * (BN * 4 / TN) + tx * 4 +: 4] = out;
      }
    }
  }
}
