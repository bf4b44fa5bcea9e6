// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_wgmma_elect_wait.cake:52:7: error: math (k = 0) reads 'a[0]' before the copy that fills it is observed by lanes 1..31 of warps 4..7 [E0610]
// CHECK: {{.*}}thread_wgmma_elect_wait.cake:49:9: note: the wait that observes the fill runs only in lane 0 of warps 4..7 of math (k = 0)
// CHECK: hint: add 'syncwarp;' after the wait, outside the 'elect' / lane condition, so that the other lanes of each warp are ordered after it; or let every thread that does the read wait; or move the read under the same condition as the wait
// The math warpgroup waits for the stage in 'elect' (one lane per warp) and the whole warpgroup then issues
// wgmma on it: the wgmma of the other lanes is not ordered after the copy (there is no syncwarp after the
// elected wait).  Fixed twin: thread_wgmma_elect_wait_fixed.cake (every thread waits).
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
    for k in 0..k_tiles {
      let s = k % S;
      elect {
        wait full[s] parity((k / S) & 1);
      }
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
    store C[i32(block.x) * BM, i32(block.y) * BN] <- bf16(acc);
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@52 E0610 {{math (k = 0) reads 'a[0]' before the copy that fills it is observed by lanes 1..31 of warps 4..7}}
// expected-note@52 {{counterexample: loop 'k' runs 1 iteration (M = 64, K = 64, N = 64)}}
// expected-note@49 {{the wait that observes the fill runs only in lane 0 of warps 4..7 of math (k = 0)}}
// expected-note@52 {{the read runs in warps 4..7}}
// expected-note@37 {{filled here by load (k = 0)}}
