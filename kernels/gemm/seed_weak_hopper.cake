// gemm_seed_weak: C = A * B^T (bf16 in, f32 accumulation, bf16 out) for sm_90a, written as the simplest
// correct Hopper schedule: the deliberately weak starting point of the harness's search (docs/harness.md,
// "Search"), the first member of the GEMM family kernels/gemm/family_hopper_bf16.json.
// A[M, K] row-major, B[N, K] row-major (K-major, "B^T"), C[M, N] row-major; M % BM, N % BN, K % BK == 0.
//
// Schedule: non-specialized, one output tile per block, S-stage ring (S = 2 by default)
//   grid     (M / BM, N / BN) blocks of BM / 64 warpgroups; block (x, y) computes C[x*BM +: BM, y*BN +: BN].
//   roles    one role, math[BM / 64], covers every warp: the same warps load and compute (no producer
//            warpgroup, no register reallocation).  Instance i computes rows 64*i +: 64 of the tile with
//            wgmma m64nBNk16 into a 64 x BN f32 accumulator.
//   memory   TMA copies the [BM, BK] tile of A and the [BN, BK] tile of B of k-tile k into stage k % S
//            (128-byte swizzle, the layout wgmma reads).  One elected thread of warp 0 issues the copies:
//            the first S k-tiles before the loop, k-tile k + S right after k-tile k's stage is free.
//   barriers full[s] (1 arrival): the issuing thread's arrive.expect_tx((BM + BN) * BK * 2); consumers wait
//            for parity (k / S) & 1.  The named barrier `consumed` (every thread of the block) ends each
//            k-tile: all warpgroups have retired their wgmmas on stage s (wgmma.wait 0) before it is
//            refilled.
//   pipeline none beyond the ring: each k-tile waits for its own wgmmas (wgmma.wait 0) and then for every
//            other warp (the barrier), and the refill of a stage is issued by a thread that also computes.
//            The tuned members of the family remove each of these stalls.
//   epilog   each warpgroup converts its accumulator to bf16 and stores it at the wgmma lane layout.
target sm_90a;

kernel gemm_seed_weak<BM = 128, BN = 128, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, BM % 64 == 0, BM <= 256, BK * 2 == 128, BN % 16 == 0,
           BN <= 256, S >= 2, K / BK >= S - 1)
  grid(M / BM, N / BN) threads(2 * BM)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(BM / 16);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let m0 = i32(block.x) * BM;
  let n0 = i32(block.y) * BN;
  let k_tiles = K / BK;
  let lead = S - 1;                        // k-tiles in flight ahead of the one being multiplied

  role math[BM / 64] = warpgroups(0..BM / 64) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    if math.index == 0 && math.warp == 0 {
      elect {
        for k in 0..lead {
          wait empty[k % S] parity(((k / S) & 1) ^ 1);
          arrive full[k % S] expect_tx((BM + BN) * BK * 2);
          tma.load a[k % S] <- A[m0, k * BK] signal(full[k % S]);
          tma.load b[k % S] <- B[n0, k * BK] signal(full[k % S]);
        }
      }
    }
    for k in 0..k_tiles - lead {
      if math.index == 0 && math.warp == 0 {
        elect {                            // the same thread that multiplies issues the next copy
          let f = k + lead;
          wait empty[f % S] parity(((f / S) & 1) ^ 1);
          arrive full[f % S] expect_tx((BM + BN) * BK * 2);
          tma.load a[f % S] <- A[m0, f * BK] signal(full[f % S]);
          tma.load b[f % S] <- B[n0, f * BK] signal(full[f % S]);
        }
      }
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;                        // no wgmma group stays in flight across k-tiles
      elect {
        arrive empty[s];
      }
    }
    for k in k_tiles - lead..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    store C[m0 + 64 * math.index, n0] <- bf16(acc);
  }
}
