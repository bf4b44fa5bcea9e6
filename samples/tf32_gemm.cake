// tf32_gemm: C = A * B with f32 inputs and output, computed on sm_80+ tensor cores as tf32
// (mma.sync.m16n8k8 .tf32 inputs, f32 accumulation).  Each input is rounded to tf32 (10 mantissa bits, to
// nearest, ties to even) as it is written into a fragment; the range stays f32's (8 exponent bits).
// A[M, K] row-major (K contiguous), B[K, N] row-major (N contiguous), C[M, N] row-major.
//
// Schedule
//   grid     (N / BN, M / BM) blocks of (BM / 16) x (BN / 8) warps; warp w computes the 16 x 8 tile of C at
//            (16 * (w / (BN / 8)), 8 * (w % (BN / 8))) of the block's BM x BN tile.
//   memory   per k-tile of BK: every thread copies elements of the A tile [BM, BK] and of the B tile [BK, BN]
//            from global to shared (scalar loads; a teaching schedule, not a fast one), a barrier, then BK / 8
//            k-steps, each filling the tf32 fragments element by element from shared memory at the m16n8k8
//            lane layout (g = lane / 4, q = lane % 4):
//              A element e: row g + 8 * (e % 2), k q + 4 * (e / 2)
//              B element e: k q + 4 * e,         column g
//            and one mma.sync.  A second barrier frees the tiles for the next k-tile.
//   epilog   the accumulator is stored at its lane layout (st.global.v2.f32 pairs).
//   shape    requires M % BM == 0, N % BN == 0, K % BK == 0.
target sm_80;

kernel tf32_gemm<BM = 32, BN = 16, BK = 32>(A: f32[M, K] align(16), B: f32[K, N] align(16), C: f32[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, BM % 16 == 0, BN % 8 == 0, BK % 8 == 0,
           (BM * BK) % (32 * (BM / 16) * (BN / 8)) == 0, (BK * BN) % (32 * (BM / 16) * (BN / 8)) == 0)
  grid(N / BN, M / BM) threads(32 * (BM / 16) * (BN / 8))
{
  shared sa: f32[BM, BK + 4] align(16);   // A tile, rows padded by 4 (the 8 g-rows of a fragment read fall in distinct banks)
  shared sb: f32[BK, BN + 4] align(16);   // B tile

  let t = i32(tid.x);
  let w = t / 32;
  let g = i32(lane) / 4;
  let q = i32(lane) % 4;
  let wr = 16 * (w / (BN / 8));           // the warp's tile inside the block's
  let wc = 8 * (w % (BN / 8));
  let m0 = i32(block.y) * BM;
  let n0 = i32(block.x) * BN;

  var acc: frag<mma_c, f32, 16, 8, 8> = 0.0;
  var a: frag<mma_a, tf32, 16, 8, 8>;
  var b: frag<mma_b, tf32, 16, 8, 8>;

  for kt in 0..K / BK {
    let k0 = kt * BK;
    for v in 0..(BM * BK) / (32 * (BM / 16) * (BN / 8)) unroll {
      let idx = v * (32 * (BM / 16) * (BN / 8)) + t;
      sa[idx / BK, idx % BK] = A[m0 + idx / BK, k0 + idx % BK];
    }
    for v in 0..(BK * BN) / (32 * (BM / 16) * (BN / 8)) unroll {
      let idx = v * (32 * (BM / 16) * (BN / 8)) + t;
      sb[idx / BN, idx % BN] = B[k0 + idx / BN, n0 + idx % BN];
    }
    syncthreads;
    for kk in 0..BK / 8 unroll {
      for e in 0..4 unroll {
        a[e] = sa[wr + g + 8 * (e % 2), 8 * kk + q + 4 * (e / 2)];   // rounds to tf32
      }
      for e in 0..2 unroll {
        b[e] = sb[8 * kk + q + 4 * e, wc + g];
      }
      mma.sync acc += a * b;
    }
    syncthreads;
  }
  store C[m0 + wr, n0 + wc] <- acc;
}
