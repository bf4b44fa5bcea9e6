// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_elect_wait_no_syncwarp.cake:43:36: error: use (k = 0) reads 'a[0]' before the copy that fills it is observed by lanes 1..31 of warp 1 [E0610]
// CHECK: {{.*}}thread_elect_wait_no_syncwarp.cake:41:9: note: the wait that observes the fill runs only in lane 0 of warp 1 of use (k = 0)
// CHECK: hint: add 'syncwarp;' after the wait, outside the 'elect' / lane condition, so that the other lanes of each warp are ordered after it; or let every thread that does the read wait; or move the read under the same condition as the wait
// The consumer warp waits in 'elect' (one lane) and all lanes read the stage without a syncwarp after the
// elected wait: the other 31 lanes are not ordered after the copy.
// Fixed twin: thread_elect_wait_no_syncwarp_fixed.cake (syncwarp after the elected wait).
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
      Out[k * 32 + i32(lane), 0] = a[s][i32(lane), 0];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@43 E0610 {{use (k = 0) reads 'a[0]' before the copy that fills it is observed by lanes 1..31 of warp 1}}
// expected-note@43 {{counterexample: loop 'k' runs 1 iteration (M = 32)}}
// expected-note@41 {{the wait that observes the fill runs only in lane 0 of warp 1 of use (k = 0)}}
// expected-note@43 {{the read runs in warp 1}}
// expected-note@33 {{filled here by load (k = 0)}}
