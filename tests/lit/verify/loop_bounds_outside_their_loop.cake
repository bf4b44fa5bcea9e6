// A loop variable's bounds hold inside its loop only.  The consumer peels its last k-tile off the loop
// (`for k in 0..k_tiles - 1`, then the last tile), and 'pipe' waits for that tile with the wrong parity when it
// is the only one (K = 64).  Taken as facts about the shape, the bounds of the peeled loop's variable
// (k < k_tiles - 1) said that the loop runs, so no shape with K = 64 was simulated and 'pipe' verified.
// 'pipe_fixed' waits with (kl / S) & 1 for every K and verifies.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;

kernel pipe<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0)
  grid(M / BM, N / BN) threads(256)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let k_tiles = K / BK;

  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[i32(block.x) * BM, k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math = warpgroup(1) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles - 1 {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    let kl = k_tiles - 1;
    let sl = kl % S;
    wait full[sl] parity(select(k_tiles == 1, 1, (kl / S) & 1));
    wgmma.fence;
    wgmma acc += a[sl] * b[sl].T;
    wgmma.commit;
    wgmma.wait 0;
    elect {
      arrive empty[sl];
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}

kernel pipe_fixed<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0)
  grid(M / BM, N / BN) threads(256)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let k_tiles = K / BK;

  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(((k / S) & 1) ^ 1);
          arrive full[s] expect_tx((BM + BN) * BK * 2);
          tma.load a[s] <- A[i32(block.x) * BM, k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, k * BK] signal(full[s]);
        }
      }
    }
  }

  role math = warpgroup(1) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles - 1 {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    let kl = k_tiles - 1;
    let sl = kl % S;
    wait full[sl] parity((kl / S) & 1);
    wgmma.fence;
    wgmma acc += a[sl] * b[sl].T;
    wgmma.commit;
    wgmma.wait 0;
    elect {
      arrive empty[sl];
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@57 E0605 {{wait on 'full[0]' with parity 1 waits for phase -1 (the phase before initialisation, which counts as complete), but math then reads 'a[0]', which no completed phase has filled}}
// expected-note@57 {{counterexample: loop 'k' runs 1 iteration, loop 'k' runs 0 iterations (M = 64, K = 64, N = 64)}}
// expected-note@57 {{math passes this wait at once}}
// expected-note@59 {{and reads 'a[0]' here}}
