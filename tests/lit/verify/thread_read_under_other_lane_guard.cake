// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_read_under_other_lane_guard.cake:43:26: error: use (k = 0) reads 'a[0]' before the copy that fills it is observed by lane 1 of warp 1 [E0610]
// CHECK: {{.*}}thread_read_under_other_lane_guard.cake:40:9: note: the wait that observes the fill runs only in lane 0 of warp 1 of use (k = 0)
// CHECK: hint: add 'syncwarp;' after the wait, outside the 'elect' / lane condition, so that the other lanes of each warp are ordered after it; or let every thread that does the read wait; or move the read under the same condition as the wait
// Lane 0 waits for the fill, lane 1 reads the stage: the read is not under the wait's guard.
// Fixed twin: thread_read_under_other_lane_guard_fixed.cake (the read moves under the same guard).
target sm_90a;

kernel k<S = 2>(
    A: f32[M, 32] tma(box=[32, 32]) align(16),
    Out: f32[M, 128] align(16))
  requires(M % 32 == 0)
  grid(1) threads(64)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(1);
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
  role use = warp(1) {
    for k in 0..tiles {
      let s = k % S;
      if lane == 0 {
        wait full[s] parity((k / S) & 1);
      }
      if lane == 1 {
        Out[k * 32, 0] = a[s][0, 0];
      }
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@43 E0610 {{use (k = 0) reads 'a[0]' before the copy that fills it is observed by lane 1 of warp 1}}
// expected-note@43 {{counterexample: loop 'k' runs 1 iteration (M = 32)}}
// expected-note@40 {{the wait that observes the fill runs only in lane 0 of warp 1 of use (k = 0)}}
// expected-note@43 {{the read runs in lane 1 of warp 1}}
// expected-note@32 {{filled here by load (k = 0)}}
