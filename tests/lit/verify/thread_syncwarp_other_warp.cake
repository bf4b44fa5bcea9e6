// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_syncwarp_other_warp.cake:46:53: error: use (k = 0) reads 'a[0]' before the copy that fills it is observed by warps 5..7 [E0610]
// CHECK: {{.*}}thread_syncwarp_other_warp.cake:42:11: note: the wait that observes the fill runs only in lane 0 of warp 4 of use (k = 0)
// CHECK: hint: let every warp that does the read wait; or, after the wait, pass a named barrier ('sync BAR') that both the waiting warps and these warps execute; or move the read under the same condition as the wait
// The elected lane of warp 0 (of the consumer warpgroup) waits, then every warp executes syncwarp: that
// orders the lanes of warp 0 after the wait, but not warps 1..3 (block warps 5..7), which read the stage too.
// Fixed twin: thread_syncwarp_other_warp_fixed.cake (every warp's elected lane waits before the syncwarp).
target sm_90a;

kernel k<S = 2>(
    A: f32[M, 32] tma(box=[32, 32]) align(16),
    Out: f32[M, 128] align(16))
  requires(M % 32 == 0)
  grid(1) threads(256)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(4);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let tiles = M / 32;
  role load = warp(0) {
    elect {
      for k in 0..tiles {
        let s = k % S;
        wait empty[s] parity(((k / S) & 1) ^ 1);
        arrive full[s] expect_tx(32 * 32 * 4);
        tma.load a[s] <- A[k * 32, 0] signal(full[s]);
      }
    }
  }
  role use = warpgroup(1) {
    for k in 0..tiles {
      let s = k % S;
      if use.warp == 0 {
        elect {
          wait full[s] parity((k / S) & 1);
        }
      }
      syncwarp;
      Out[k * 32 + i32(lane), i32(use.warp) * 32] = a[s][i32(lane), i32(use.warp)];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@46 E0610 {{use (k = 0) reads 'a[0]' before the copy that fills it is observed by warps 5..7}}
// expected-note@46 {{counterexample: loop 'k' runs 1 iteration (M = 32)}}
// expected-note@42 {{the wait that observes the fill runs only in lane 0 of warp 4 of use (k = 0)}}
// expected-note@46 {{the read runs in warps 4..7}}
// expected-note@33 {{filled here by load (k = 0)}}
