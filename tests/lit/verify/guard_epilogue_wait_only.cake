// A segment-end epilogue (drain, store, start over) at a data-dependent point of the ring loop: its wgmma.wait
// runs only where the condition holds, which the analysis cannot evaluate (it is not periodic in j), so it is
// taken not to run - and without the loop's own `wgmma.wait 1` nothing retires the wgmma's reads of stage s
// before its release.  The twin with the wait verifies (guard_epilogue_wait_fixed.cake).
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;

kernel seg<BM = 64, BN = 64, BK = 64, S = 4, G = 8>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16),
    C: f32[M, N] align(16))
  requires(K % 8 == 0, N % 2 == 0, cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) <= 1000000,
           cdiv(M, BM) * cdiv(N, BN) * cdiv(K, BK) >= G)
  grid(G) threads(160)
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
  let k_tiles = cdiv(K, BK);
  let tiles_n = cdiv(N, BN);
  let total = cdiv(M, BM) * tiles_n * k_tiles;
  let first = i32(block.x) * total / G;
  let count = (i32(block.x) + 1) * total / G - first;

  role load = warp(4) {
    elect {
      for j in 0..count {
        let it = first + j;
        let s = j % S;
        wait empty[s] parity(((j / S) & 1) ^ 1);
        arrive full[s] expect_tx((BM + BN) * BK * 2);
        tma.load a[s] <- A[(it / k_tiles / tiles_n) * BM, (it % k_tiles) * BK] signal(full[s]);
        tma.load b[s] <- B[(it / k_tiles % tiles_n) * BN, (it % k_tiles) * BK] signal(full[s]);
      }
    }
  }

  role math = warpgroup(0) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for j in 0..count {
      let it = first + j;
      let s = j % S;
      wait full[s] parity((j / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      if j > 0 {
        elect {
          arrive empty[(j - 1) % S];
        }
      }
      if it % k_tiles == k_tiles - 1 || j == count - 1 {
        wgmma.wait 0;
        store C[(it / k_tiles / tiles_n) * BM, (it / k_tiles % tiles_n) * BN] <- acc;
        acc = 0.0;
      }
    }
    wgmma.wait 0;
    elect {
      arrive empty[(count - 1) % S];
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@39 E0609 {{load (j = 4) overwrites 'a[0]' while math may still read it}}
// expected-note@39 {{counterexample: loop 'j' runs 5 iterations (M = 64, K = 8, N = 3008)}}
// expected-note@52 {{math reads 'a[0]' here (j = 0); the read has not ended yet}}
// expected-note@56 {{and releases it here (j = 1), before the wait that ends the read}}
