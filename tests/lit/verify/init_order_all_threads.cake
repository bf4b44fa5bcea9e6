// RUN: %cakec --verify-only --verify-diagnostics %s
// The hopper_gemm pipeline with the 'if tid.x == 0' around the mbarrier inits forgotten: all 384 threads
// initialise both barrier arrays, so a late warp can reset 'full' after the producer already armed it.
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

  mbarrier.init full;
  mbarrier.init empty;
  fence.mbarrier_init;
  syncthreads;

  let m0 = i32(block.x) * BM;
  let n0 = i32(block.y) * BN;
  let k_tiles = K / BK;

  role load = warpgroup(0) regs(40) {
    if load.warp == 0 {
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
// ---- expected diagnostics (utils/verify-expectations.py) ----
// (the second thread of each pair is the solver's choice among 1..383; it moves with the solver's state)
// expected-error@18 E0656 {{mbarrier 'full' is initialised by more than one thread: threads 0 and }}
// expected-note@18 {{counterexample: tid.x = 0 and tid.x = }}
// expected-error@19 E0656 {{mbarrier 'empty' is initialised by more than one thread: threads 0 and }}
// expected-note@19 {{counterexample: tid.x = 0 and tid.x = }}
