// gemm_nt_wgmma_tile: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a, one output tile per block
// with the tile size a compile-time choice: the bf16 GEMM library's kernel for the shapes the persistent
// 256-wide kernel serves badly - decode / skinny M (BM = 64: one consumer warpgroup, M <= 64 wastes no
// wgmma rows; deep rings keep B streaming), small problems (64 x 64 .. 128 x 128: enough blocks for a wave),
// K-heavy shapes with few output tiles (small tiles: more SMs share the long K loop), K-light shapes
// (S = 2..3: a short pipeline fills quickly) and mid-size M (BM = 192 / 256: rows 129..256 in one tile, so B,
// the bulk of the traffic there, is streamed once instead of once per 64- or 128-row panel).
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major.  Any M, N (ragged edges) with
// K % 8 == 0 (TMA needs 16-byte row strides) and N even (the accumulator is stored as bf16 pairs).
//
// Schedule
//   grid     (cdiv(N, BN), cdiv(M, BM)) blocks of 128 * (BM / 64) + 32 threads; block (x, y) computes
//            C[y*BM +: BM, x*BN +: BN].  block.x (N) varies fastest: the blocks of a wave share a few row
//            panels of A and stream B (for decode shapes A is a few rows and B is the whole traffic).
//   roles    math[BM / 64] = warpgroups 0..: instance i computes rows 64*i +: 64 of the tile with wgmma
//            m64nBNk16 into a 64 x BN f32 accumulator; load = the one warp after them: an elected lane
//            issues the TMA copies of A [BM, BK] and B [BN, BK] per k-tile into an S-stage ring.  No regs(..)
//            budgets (setmaxnreg would pin one block per SM) and a producer of one warp, not a warpgroup:
//            the small tiles need few registers, so several blocks share an SM where shared memory allows.
//   barriers full[s]  (1 arrival): the producer's arrive.expect_tx((BM + BN) * BK * 2 bytes).
//            empty[s] (4 arrivals per consumer warpgroup): an elected lane of every consumer warp, once the
//                     wgmma group that read stage s has completed.  k-tile k uses stage k % S in round
//                     k / S: consumers wait parity (k / S) & 1, the producer (k / S + 1) & 1.
//   pipeline one wgmma group in flight (wgmma.wait 1 retires k-tile k-1 and releases its stage); the
//            producer runs up to S k-tiles ahead.
//   edges    TMA zero-fills box elements outside A and B (ragged M, N and the K tail add zeros); the
//            accumulator store is masked by C's dims.
//   smem     S * (BM + BN) * BK * 2 bytes: 64 x 32 x 64 with S = 8 is 96 KB (two blocks per SM).
target sm_90a;

kernel gemm_nt_wgmma_tile<BM = 128, BN = 128, BK = 64, S = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(K % 8 == 0, N % 2 == 0, BM % 64 == 0, BM <= 256, BK * 2 == 128, BN % 16 == 0, BN <= 256,
           S >= 2)
  grid(cdiv(N, BN), cdiv(M, BM)) threads(128 * (BM / 64) + 32)
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

  let n0 = i32(block.x) * BN;
  let m0 = i32(block.y) * BM;
  let k_tiles = cdiv(K, BK);

  role load = warp(2 * (BM / 32)) {
    elect {
      for k in 0..k_tiles {
        let s = k % S;
        wait empty[s] parity(((k / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s] <- A[m0, k * BK] signal(full[s]);
        tma.load b[s] <- B[n0, k * BK] signal(full[s]);
      }
    }
  }

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 1;                      // k-tile k-1's group is done: its stage can be refilled
      if k > 0 {
        elect {
          arrive empty[(k - 1) % S];
        }
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(k_tiles - 1) % S];   // release the last stage too (keeps every phase balanced)
    }
    store C[m0 + 64 * math.index, n0] <- bf16(acc);
  }
}
