// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_tma_issued_by_non_waiter.cake:35:9: error: load (k = 2) (lane 0 of warp 0) overwrites 'a[0]' while use may still read it [E0609]
// CHECK: {{.*}}thread_tma_issued_by_non_waiter.cake:31:9: note: the wait that observes the release runs only in lane 31 of warp 0 of load (k = 2)
// CHECK: hint: add 'syncwarp;' after the wait, outside the 'elect' / lane condition, so that the other lanes of each warp are ordered after it; or let every thread that does the write wait; or move the write under the same condition as the wait
// The producer warp's lane 31 waits for the consumer's release of the stage, but the elected lane (lane 0)
// issues the TMA copy that refills it: the copy is not ordered after the consumer's reads (E0609).
// Fixed twin: thread_tma_issued_by_non_waiter_fixed.cake (syncwarp after the wait).
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
    for k in 0..tiles {
      let s = k % S;
      if lane == 31 {
        wait empty[s] parity(((k / S) & 1) ^ 1);
      }
      elect {
        arrive full[s] expect_tx(32 * 32 * 4);
        tma.load a[s] <- A[k * 32, 0] signal(full[s]);
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
// expected-error@35 E0609 {{load (k = 2) (lane 0 of warp 0) overwrites 'a[0]' while use may still read it}}
// expected-note@35 {{counterexample: loop 'k' runs 3 iterations (M = 96)}}
// expected-note@43 {{use reads 'a[0]' here (k = 0)}}
// expected-note@31 {{the wait that observes the release runs only in lane 31 of warp 0 of load (k = 2)}}
// expected-note@35 {{the write runs in lane 0 of warp 0}}
