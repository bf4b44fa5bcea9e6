// RUN: %cakec --verify-only --verify-diagnostics %s
// Fixed twin of thread_elect_wait_no_syncwarp.cake: the elected lane waits, then 'syncwarp' orders the other
// lanes of its warp after that wait.
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
      elect {
        wait full[s] parity((k / S) & 1);
      }
      syncwarp;
      Out[k * 32 + i32(lane), 0] = a[s][i32(lane), 0];
      elect {
        arrive empty[s];
      }
    }
  }
}
