// ampere_gemm: C = A * B with bf16 inputs, f32 accumulation and bf16 output, for sm_80 tensor cores.
// A[M, K] row-major (K contiguous), B[K, N] row-major (N contiguous), C[M, N] row-major.
//
// Schedule
//   grid     (N / BN, M / BM) blocks; block (x, y) computes C[y*BM +: BM, x*BN +: BN].
//   warps    (BM / WM) x (BN / WN) warps (2 x 2 = 4 warps, 128 threads with the defaults); warp w computes the
//            WM x WN sub-tile at (wm, wn) = (w / (BN / WN), w % (BN / WN)) as (WM/16) x (WN/8) mma tiles
//            m16n8k16 (4 x 8 = 32 accumulator fragments = 128 f32 registers per thread).
//   memory   global -> shared with cp.async 16-byte copies (8 bf16) into an S-stage ring (S = 3):
//            sa[S][BM, BK + 8], sb[S][BK, BN + 8].  Layout: PADDED, not swizzled: each row is padded by
//            8 bf16 (16 bytes), so the 8 row addresses of one ldmatrix 8x8 matrix fall into 8 distinct
//            groups of 4 banks (row strides of 80 and 272 bytes), i.e. conflict-free ldmatrix.  The padding
//            costs 20% / 6% extra shared memory (3 stages: 30 KB + 25.5 KB = 55.5 KB, dynamic shared memory).
//   pipeline prologue: tiles 0 .. S-2 are issued, one cp.async group each (empty groups past the end keep
//            the group count uniform).  Iteration kt:
//              cp.async.wait S-2   -> this thread's copies for tile kt have landed
//              syncthreads         -> everyone's copies for tile kt landed, and everyone has finished
//                                     reading stage (kt-1) % S, which is the stage refilled next
//              issue tile kt+S-1 into stage (kt+S-1) % S, cp.async.commit
//              BK/16 k-steps on stage kt % S: ldmatrix.x4 for A, ldmatrix.x4.trans for B (B is N-major
//              in shared, the mma wants K-major fragments), (WM/16)*(WN/8) mma.sync
//            One barrier per k-tile; S-1 tiles of copies are in flight while the tensor cores run.
//   epilog   each accumulator fragment is converted to bf16 and stored at its lane layout (bf16x2 stores).
//   shape    requires M % BM, N % BN, K % BK == 0; align(16) on the tensors makes every 16-byte cp.async
//            source aligned (rows are K*2 and N*2 bytes, multiples of 16 since BK, BN are multiples of 8).
target sm_80;

kernel ampere_gemm<BM = 128, BN = 128, BK = 32, WM = 64, WN = 64, S = 3>(
    A: bf16[M, K] align(16), B: bf16[K, N] align(16), C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0,
           BM % WM == 0, BN % WN == 0, WM % 16 == 0, WN % 16 == 0, BK % 16 == 0, S >= 2,
           (BM * BK / 8) % (32 * (BM / WM) * (BN / WN)) == 0,
           (BK * BN / 8) % (32 * (BM / WM) * (BN / WN)) == 0)
  grid(N / BN, M / BM) threads(32 * (BM / WM) * (BN / WN))
{
  shared sa: bf16[S][BM, BK + 8] align(128);    // A tiles, padded rows
  shared sb: bf16[S][BK, BN + 8] align(128);    // B tiles, padded rows

  let t = i32(tid.x);
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;
  let wm = warp / (BN / WN);
  let wn = warp % (BN / WN);
  let kt_count = K / BK;

  var acc: frag<mma_c, f32, 16, 8, 16>[WM / 16][WN / 8] = 0.0;
  var af: frag<mma_a, bf16, 16, 8, 16>[WM / 16];
  var bf: frag<mma_b, bf16, 16, 8, 16>[WN / 8];

  // prologue: tiles 0 .. S-2
  for p in 0..S - 1 unroll {
    if p < kt_count {
      for v in 0..(BM * BK / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BK / 8);
        let c = (idx % (BK / 8)) * 8;
        cp.async sa[p][r, c +: 8] <- A[m0 + r, p * BK + c +: 8];
      }
      for v in 0..(BK * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BN / 8);
        let c = (idx % (BN / 8)) * 8;
        cp.async sb[p][r, c +: 8] <- B[p * BK + r, n0 + c +: 8];
      }
    }
    cp.async.commit;
  }

  for kt in 0..kt_count {
    cp.async.wait S - 2;     // tile kt is in shared memory (this thread's part)
    syncthreads;             // ... all threads' parts; stage (kt - 1) % S is free

    // refill the stage everyone just finished with tile kt + S - 1
    let nk = kt + S - 1;
    if nk < kt_count {
      let ns = nk % S;
      for v in 0..(BM * BK / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BK / 8);
        let c = (idx % (BK / 8)) * 8;
        cp.async sa[ns][r, c +: 8] <- A[m0 + r, nk * BK + c +: 8];
      }
      for v in 0..(BK * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BN / 8);
        let c = (idx % (BN / 8)) * 8;
        cp.async sb[ns][r, c +: 8] <- B[nk * BK + r, n0 + c +: 8];
      }
    }
    cp.async.commit;

    let s = kt % S;
    for kk in 0..BK / 16 unroll {
      // A fragments: ldmatrix.x4; lane L supplies row L % 16 of the 16x16 block, k half L / 16.
      for i in 0..WM / 16 unroll {
        ldmatrix af[i] <- sa[s][wm * WM + i * 16 + lane % 16, kk * 16 + (lane / 16) * 8 +: 8];
      }
      // B fragments: ldmatrix.x4.trans fills two n8 fragments; lane L supplies k row L % 16 of the
      // k16 x n16 block, n half L / 16 (matrices: k0-7/n0-7, k8-15/n0-7, k0-7/n8-15, k8-15/n8-15).
      for j in 0..WN / 8 step 2 unroll {
        ldmatrix.trans bf[j], bf[j + 1] <- sb[s][kk * 16 + lane % 16, wn * WN + j * 8 + (lane / 16) * 8 +: 8];
      }
      for i in 0..WM / 16 unroll {
        for j in 0..WN / 8 unroll {
          mma.sync acc[i][j] += af[i] * bf[j];
        }
      }
    }
  }
  cp.async.wait 0;           // drain the (empty) trailing groups before the block exits

  // epilogue: f32 -> bf16, stored at the m16n8 accumulator lane layout
  for i in 0..WM / 16 unroll {
    for j in 0..WN / 8 unroll {
      store C[m0 + wm * WM + i * 16, n0 + wn * WN + j * 8] <- bf16(acc[i][j]);
    }
  }
}
