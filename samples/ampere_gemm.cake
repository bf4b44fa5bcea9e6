// ampere_gemm: C = A * B with bf16 inputs, f32 accumulation and bf16 output, for sm_80 tensor cores
// (mma.sync; also the fastest non-wgmma path on sm_90 / H100 / H200).
// A[M, K] row-major (K contiguous), B[K, N] row-major (N contiguous), C[M, N] row-major.
//
// Schedule
//   grid     (cdiv(N, BN), cdiv(M, BM)) blocks; block (x, y) computes C[y*BM +: BM, x*BN +: BN] (clipped to C
//            at the right and bottom edges; see "edges").  block.x varies
//            fastest, so the blocks of one wave share a few row panels of A and sweep the column panels of B,
//            which stay in L2 (B is 32 MB at N = K = 4096).
//   warps    (BM / WM) x (BN / WN) warps (2 x 4 = 8 warps, 256 threads with the defaults); warp w computes the
//            WM x WN sub-tile at (wm, wn) = (w / (BN / WN), w % (BN / WN)) as (WM/16) x (WN/8) mma tiles
//            m16n8k16 (4 x 8 = 32 accumulator fragments = 128 f32 registers per thread).
//   memory   global -> shared with cp.async 16-byte copies (8 bf16) into an S-stage ring (S = 3, BK = 64):
//            sa[S][BM, BK + 8], sb[S][BK, BN + 8].  Layout: PADDED, not swizzled: each row is padded by
//            8 bf16 (16 bytes), so the 8 row addresses of one ldmatrix 8x8 matrix fall into 8 distinct
//            groups of 4 banks (row strides of 144 and 528 bytes: 9 and 33 16-byte chunks, odd), i.e.
//            conflict-free ldmatrix and cp.async; addresses stay base + constant per unrolled access (no
//            XOR).  3 stages: 3 * (18 KB + 33 KB) = 153 KB of dynamic shared memory (fits sm_80's 164 KB;
//            on sm_90, -D S=4 takes 204 KB), one block per SM (8 warps at up to 255 registers: the 128
//            accumulators + 2 x 32 fragment registers).
//   pipeline prologue: tiles 0 .. S-2 of the cdiv(K, BK) k-tiles are issued, one cp.async group each (empty
//            groups past the end keep the group count uniform).  Iteration kt:
//              cp.async.wait S-2   -> this thread's copies for tile kt have landed
//              syncthreads         -> everyone's copies for tile kt landed, and everyone has finished
//                                     reading stage (kt-1) % S, which is the stage refilled next
//              ldmatrix the k-step-0 fragments of tile kt (buffer 0), and meanwhile run the mma of the
//              last k-step of tile kt-1, whose fragments (buffer 1) were loaded before the barrier
//              issue tile kt+S-1 into stage (kt+S-1) % S (plain copies on an interior block and a
//              whole k-tile, zero-filling ones otherwise: see "edges"), cp.async.commit
//              k-steps 0 .. BK/16-2: ldmatrix the fragments of k-step kk+1 into buffer (kk+1) % 2 while
//              the (WM/16)*(WN/8) mma.sync of k-step kk run on buffer kk % 2 (fragment double buffering;
//              BK/16 is even, so the last k-step always uses buffer 1).
//            After the loop the last k-step of the last tile runs.  One barrier per k-tile; S-1 tiles of
//            copies are in flight while the tensor cores run, and no warp waits for ldmatrix at a barrier
//            with nothing to issue.  A fragments: ldmatrix.x4; B fragments: ldmatrix.x4.trans (B is N-major
//            in shared, the mma wants K-major fragments), two n8 fragments per instruction.
//   epilog   after a barrier the B ring is reused as the C tile (BM <= S * BK rows of BN + 8): each
//            accumulator fragment is converted to bf16 and stored to shared memory at its lane layout
//            (bf16x2), then, after a second barrier, the block writes the BM x BN tile to C as 16-byte
//            vectors of whole rows (coalesced; direct fragment stores write 16-byte pieces of 8 rows), each
//            store masked by row < M and column < N.
//   edges    ragged shapes (M arbitrary, N and K multiples of 8) are handled without slowing whole tiles:
//            `interior` (m0 + BM <= M and n0 + BN <= N) is one uniform predicate per block, and a refill of a
//            whole k-tile (nk < K / BK) on an interior block takes the unmasked copies; every other copy (the
//            prologue, edge blocks, the partial last k-tile) is `cp.async ... valid(row and column inside)`,
//            which zero-fills the 16 bytes outside [M, K] / [K, N] (so the padded rows and columns of the
//            tiles hold zeros and add nothing to the accumulators) and reads nothing there.  N % 8 == K % 8
//            == 0 keeps every 16-byte vector wholly inside or outside its tensor.
//   measured H200 (--arch sm_90, CUDA 13, bench/perf_gemm_softmax.py), before the address work: defaults 4096^3 345 TFLOP/s
//            (cuBLAS 789: 0.44), 8192^3 339 (0.44); -D S=4: 348-353 / 341-347 TFLOP/s; the mainloop alone
//            (K slope) runs at 365-390 TFLOP/s.  Before this schedule: 128x128x32, 4 warps, 3 stages: 201.
//            After the address work (bench/results/2026-11-29-session2/ampere_variants.md): defaults 4096^3
//            408 TFLOP/s (cuBLAS 797: 0.51), 8192^3 384 (751: 0.51), main loop (K slope) 485; S=4 392 / 387.
//            These figures predate the ragged-edge support (not yet re-measured with it; the main loop's
//            SASS is unchanged, see "address").
//   address  every address is one register per access family plus an immediate: the unrolled copies
//            (idx = v * threads + t) share t / 8, t % 8 through cakec's affine reassociation, ldmatrix rows
//            differ only in [reg+imm], and a B/A row step of the copies is one mad.wide.u32 of the 32-bit
//            row length.  nk is written kt + (S - 1) so that the loop-variant part stays one register.
//            SASS (sm_90, ptxas 13.0) per k-tile: 128 HMMA + 127 other (32 LDSM, 12 LDGSTS, ~76 integer);
//            before this: 128 + 295, and 236 instead of 255 registers, no spills.  With the ragged edges
//            (nvdisasm of ptxas 13.0 output): the interior path is 128 HMMA + 130 other (the same 12 LDGSTS,
//            32 LDSM; +1 BRA to the edge path, +2 padding), 244 registers, no spills; the out-of-line edge
//            refill is 121 instructions (12 LDGSTS with the zero-fill predicate, 24 SEL for the clamped
//            source addresses).
//   shape    requires N % 8 == 0, K % 8 == 0 and K > 0 (M is arbitrary): align(16) on the tensors and rows
//            of K*2 and N*2 bytes (multiples of 16) make every 16-byte cp.async source and C store aligned.
target sm_80;

kernel ampere_gemm<BM = 128, BN = 256, BK = 64, WM = 64, WN = 64, S = 3>(
    A: bf16[M, K] align(16), B: bf16[K, N] align(16), C: bf16[M, N] align(16))
  requires(N % 8 == 0, K % 8 == 0, K > 0,
           BM % WM == 0, BN % WN == 0, WM % 16 == 0, WN % 16 == 0, BK % 32 == 0, S >= 2, BM <= S * BK,
           (BM * BK / 8) % (32 * (BM / WM) * (BN / WN)) == 0,
           (BK * BN / 8) % (32 * (BM / WM) * (BN / WN)) == 0,
           (BM * BN / 8) % (32 * (BM / WM) * (BN / WN)) == 0)
  grid(cdiv(N, BN), cdiv(M, BM)) threads(32 * (BM / WM) * (BN / WN))
{
  shared sa: bf16[S][BM, BK + 8] align(128);    // A tiles, padded rows
  shared sb: bf16[S][BK, BN + 8] align(128);    // B tiles, padded rows

  let t = i32(tid.x);
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;
  let wm = warp / (BN / WN);
  let wn = warp % (BN / WN);
  let kt_count = cdiv(K, BK);     // k-tiles; the last one is partial when K % BK != 0
  let kt_full = K / BK;           // whole k-tiles
  let interior = m0 <= M - BM && n0 <= N - BN;   // the block's C tile lies inside C: no row/column masks

  var acc: frag<mma_c, f32, 16, 8, 16>[WM / 16][WN / 8] = 0.0;
  var af: frag<mma_a, bf16, 16, 8, 16>[2][WM / 16];   // [buffer][i]
  var bf: frag<mma_b, bf16, 16, 8, 16>[2][WN / 8];    // [buffer][j]

  // prologue: tiles 0 .. S-2
  for q in 0..S - 1 unroll {
    if q < kt_count {
      for v in 0..(BM * BK / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BK / 8);
        let c = (idx % (BK / 8)) * 8;
        cp.async sa[q][r, c +: 8] <- A[m0 + r, q * BK + c +: 8] valid(m0 + r < M && q * BK + c < K);
      }
      for v in 0..(BK * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BN / 8);
        let c = (idx % (BN / 8)) * 8;
        cp.async sb[q][r, c +: 8] <- B[q * BK + r, n0 + c +: 8] valid(q * BK + r < K && n0 + c < N);
      }
    }
    cp.async.commit;
  }

  for kt in 0..kt_count {
    cp.async.wait S - 2;     // tile kt is in shared memory (this thread's part)
    syncthreads;             // ... all threads' parts; stage (kt - 1) % S is free

    let s = kt % S;
    // k-step 0 of tile kt into buffer 0.  A: lane L supplies row L % 16 of the 16x16 block, k half L / 16.
    // B: lane L supplies k row L % 16 of the k16 x n16 block, n half L / 16 (matrices: k0-7/n0-7,
    // k8-15/n0-7, k0-7/n8-15, k8-15/n8-15).
    for i in 0..WM / 16 unroll {
      ldmatrix af[0][i] <- sa[s][wm * WM + i * 16 + lane % 16, (lane / 16) * 8 +: 8];
    }
    for j in 0..WN / 8 step 2 unroll {
      ldmatrix.trans bf[0][j], bf[0][j + 1] <- sb[s][lane % 16, wn * WN + j * 8 + (lane / 16) * 8 +: 8];
    }
    // the last k-step of tile kt - 1 (buffer 1, loaded before the barrier) overlaps those loads
    if kt > 0 {
      for i in 0..WM / 16 unroll {
        for j in 0..WN / 8 unroll {
          mma.sync acc[i][j] += af[1][i] * bf[1][j];
        }
      }
    }

    // refill the stage everyone finished with tile kt + S - 1
    // (interior blocks and whole k-tiles: plain copies; edge tiles: zero-fill outside [M, K] / [K, N])
    let nk = kt + (S - 1);
    let ns = nk % S;
    if interior && nk < kt_full {
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
    } else if nk < kt_count {
      for v in 0..(BM * BK / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BK / 8);
        let c = (idx % (BK / 8)) * 8;
        cp.async sa[ns][r, c +: 8] <- A[m0 + r, nk * BK + c +: 8] valid(m0 + r < M && nk * BK + c < K);
      }
      for v in 0..(BK * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
        let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
        let r = idx / (BN / 8);
        let c = (idx % (BN / 8)) * 8;
        cp.async sb[ns][r, c +: 8] <- B[nk * BK + r, n0 + c +: 8] valid(nk * BK + r < K && n0 + c < N);
      }
    }
    cp.async.commit;

    // k-steps 0 .. BK/16 - 2: load k-step kk + 1 while computing k-step kk
    for kk in 0..BK / 16 - 1 unroll {
      let nb = (kk + 1) % 2;
      for i in 0..WM / 16 unroll {
        ldmatrix af[nb][i] <- sa[s][wm * WM + i * 16 + lane % 16, (kk + 1) * 16 + (lane / 16) * 8 +: 8];
      }
      for j in 0..WN / 8 step 2 unroll {
        ldmatrix.trans bf[nb][j], bf[nb][j + 1] <- sb[s][(kk + 1) * 16 + lane % 16, wn * WN + j * 8 + (lane / 16) * 8 +: 8];
      }
      for i in 0..WM / 16 unroll {
        for j in 0..WN / 8 unroll {
          mma.sync acc[i][j] += af[kk % 2][i] * bf[kk % 2][j];
        }
      }
    }
  }
  // the last k-step of the last tile
  for i in 0..WM / 16 unroll {
    for j in 0..WN / 8 unroll {
      mma.sync acc[i][j] += af[1][i] * bf[1][j];
    }
  }
  cp.async.wait 0;           // no copies are pending (the trailing groups are empty)
  syncthreads;               // every warp has finished reading the ring: reuse sb as the C tile

  // epilogue: the BM x BN tile goes through shared memory so that global stores are 16-byte vectors of
  // whole rows.  C-tile row rr lives in sb[rr / BK][rr % BK, :] (the ring viewed as S * BK rows of BN + 8).
  for i in 0..WM / 16 unroll {
    for j in 0..WN / 8 unroll {
      let r0 = wm * WM + i * 16;
      store sb[r0 / BK][r0 % BK, wn * WN + j * 8] <- bf16(acc[i][j]);
    }
  }
  syncthreads;
  for v in 0..(BM * BN / 8) / (32 * (BM / WM) * (BN / WN)) unroll {
    let idx = v * (32 * (BM / WM) * (BN / WN)) + t;
    let rr = idx / (BN / 8);
    let cc = (idx % (BN / 8)) * 8;
    if m0 + rr < M && n0 + cc < N {   // N % 8 == 0: a vector is wholly inside or outside C
      C[m0 + rr, n0 + cc +: 8] = sb[rr / BK][rr % BK, cc +: 8];
    }
  }
}
