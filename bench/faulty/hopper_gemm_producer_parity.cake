// FAULTY (planted bug, bench/faulty): hopper_gemm with the producer's empty-wait parity flipped: in round 0 it waits for a phase only consumers can complete, consumers wait for full -> deadlock expected
// VERIFIER: cakec --verify-only rejects it: E0611 deadlock: load waits forever on 'empty[0]' for phase 0 (k = 0): it has completed 0 phases, and the current one has 0 of 8 arrivals
// FROM: samples/hopper_gemm.cake
// hopper_gemm: C = A * B^T with bf16 inputs, f32 accumulation and bf16 output, for sm_90a (H100 / H200).
// A[M, K] row-major (K contiguous), B[N, K] row-major (K contiguous, i.e. "B^T" / K-major), C[M, N] row-major.
//
// Schedule: warp-specialized, one output tile per block
//   grid     (M / BM, N / BN) blocks of 384 threads = 3 warpgroups; block (x, y) computes
//            C[x*BM +: BM, y*BN +: BN] (consecutive blocks share the B tile -> L2 reuse).
//   roles    load  = warpgroup 0, regs(40): setmaxnreg gives its registers away; one elected lane of its
//                    first warp issues every TMA copy, the other warps of the group finish immediately.
//            math  = warpgroups 1..2, two instances, regs(232): instance i computes rows 64*i +: 64 of the
//                    tile with wgmma m64nBNk16 into a 64 x BN f32 accumulator (BN/2 = 128 registers per
//                    thread); 128*40 + 256*232 = 64512 registers <= 64K.
//   memory   TMA (cp.async.bulk.tensor) copies the [BM, BK] tile of A and the [BN, BK] tile of B per k-tile
//            into an S-stage ring (S = 4: 4 * (16 KB + 32 KB) = 192 KB).  Both use the 128-byte swizzle
//            (BK * 2 = 128 bytes per row), which is the layout wgmma reads conflict-free; the shared tiles
//            declare the same swizzle and 1024-byte alignment (one swizzle atom = 8 rows x 128 B).
//   barriers full[s]  (1 arrival): the producer's arrive.expect_tx((BM + BN) * BK * 2 bytes); the phase
//                     completes when both TMA copies have delivered their bytes.
//            empty[s] (8 arrivals): one elected lane of each of the 8 consumer warps, after that warp's wgmma
//                     reading stage s have completed.
//            k-tile k uses stage s = k % S in round n = k / S.  Consumers wait full[s] for parity n & 1.  The
//            producer waits empty[s] for parity (n & 1) ^ 1: in round 0 that is the parity of the phase
//            "before" the first, which a freshly initialised mbarrier reports as complete, so the first S
//            loads do not wait.
//   pipeline consumers keep one wgmma group in flight: at k-tile k they wait full, issue the wgmma group
//            (BK/16 = 4 instructions over the stage), commit, then wgmma.wait 1 retires the group of k-tile
//            k-1, whose stage they release on empty.  The producer runs up to S tiles ahead.
//   init     thread 0 initialises all 2*S mbarriers, fence.mbarrier_init makes that visible to the async
//            proxy, and syncthreads publishes it before any role starts.
//   epilog   each consumer converts its accumulator to bf16 and stores it at the wgmma lane layout
//            (direct register -> global bf16x2 stores; the stage ring leaves no room for a 64 KB C tile).
//   shape    requires M % BM, N % BN, K % BK == 0.
target sm_90a;

kernel hopper_gemm<BM = 128, BN = 256, BK = 64, S = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0, BM == 128, BK * 2 == 128, S >= 2)
  grid(M / BM, N / BN) threads(384)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8);

  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;

  let m0 = i32(block.x) * BM;
  let n0 = i32(block.y) * BN;
  let k_tiles = K / BK;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity((k / S) & 1);   // BUG: parity flipped
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[m0, k * BK] signal(full[s]);
          tma.load b[s] <- B[n0, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math[2] = warpgroups(1..3) regs(232) {
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
