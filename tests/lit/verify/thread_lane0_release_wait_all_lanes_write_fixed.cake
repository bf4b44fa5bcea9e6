// RUN: %cakec --verify-only --verify-diagnostics %s
// Fixed twin of thread_lane0_release_wait_all_lanes_write.cake: every lane that writes the stage waits for
// the consumer's release first.
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
      wait empty[s] parity(((k / S) & 1) ^ 1);
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
