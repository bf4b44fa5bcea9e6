// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_lane0_release_wait_all_lanes_write.cake:33:7: error: load (k = 2) (lanes 1..31 of warp 0) overwrites 'a[0]' while use may still read it [E0609]
// CHECK: {{.*}}thread_lane0_release_wait_all_lanes_write.cake:31:9: note: the wait that observes the release runs only in lane 0 of warp 0 of load (k = 2)
// CHECK: hint: add 'syncwarp;' after the wait, outside the 'elect' / lane condition, so that the other lanes of each warp are ordered after it; or let every thread that does the write wait; or move the write under the same condition as the wait
// A producer warp fills the stage with plain stores from all 32 lanes, but only lane 0 waits for the
// consumer's release of it: lanes 1..31 may overwrite the stage while the consumer still reads it (E0609).
// Fixed twin: thread_lane0_release_wait_all_lanes_write_fixed.cake (every writing lane waits).
target sm_90a;

kernel k<S = 2>(
    A: f32[M, 32] align(16),
    Out: f32[M, 32] align(16))
  requires(M % 32 == 0)
  grid(1) threads(64)
{
  shared a: f32[S][32, 32] align(16);
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
    for k in 0..tiles {
      let s = k % S;
      if lane == 0 {
        wait empty[s] parity(((k / S) & 1) ^ 1);
      }
      a[s][i32(lane), 0] = A[k * 32 + i32(lane), 0];
      syncwarp;
      elect {
        arrive full[s];
      }
    }
  }
  role use = warp(1) {
    for k in 0..tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      Out[k * 32 + i32(lane), 0] = a[s][i32(lane), 0];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@33 E0609 {{load (k = 2) (lanes 1..31 of warp 0) overwrites 'a[0]' while use may still read it}}
// expected-note@33 {{counterexample: loop 'k' runs 3 iterations (M = 96)}}
// expected-note@44 {{use reads 'a[0]' here (k = 0)}}
// expected-note@31 {{the wait that observes the release runs only in lane 0 of warp 0 of load (k = 2)}}
// expected-note@33 {{the write runs in warp 0}}
