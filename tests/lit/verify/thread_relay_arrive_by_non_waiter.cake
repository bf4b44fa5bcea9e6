// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_relay_arrive_by_non_waiter.cake:54:36: error: use (k = 0) reads 'a[0]' before the copy that fills it is observed by warp 2 [E0610]
// CHECK: {{.*}}thread_relay_arrive_by_non_waiter.cake:54:36: note: the read runs in warp 2
// CHECK: hint: the threads that arrive on a barrier pass on only what they observed: arrive from threads that waited for the fill, or let these threads wait for it themselves
// The relay warp hands the filled stage on through a second barrier: lane 0 waits for the fill, but lane 1
// arrives on 'ready', so the consumer that waits on 'ready' is not ordered after the copy (an arrival passes on
// only what the arriving thread observed).  Fixed twin: thread_relay_arrive_by_non_waiter_fixed.cake.
target sm_90a;

kernel k<S = 2>(
    A: f32[M, 32] tma(box=[32, 32]) align(16),
    Out: f32[M, 128] align(16))
  requires(M % 32 == 0)
  grid(1) threads(96)
{
  shared a: f32[S][32, 32] align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(1);
  mbarrier ready[S] arrivals(1);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    mbarrier.init ready;
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
  role relay = warp(1) {
    for k in 0..tiles {
      let s = k % S;
      if lane == 0 {
        wait full[s] parity((k / S) & 1);
      }
      if lane == 1 {
        arrive ready[s];
      }
    }
  }
  role use = warp(2) {
    for k in 0..tiles {
      let s = k % S;
      wait ready[s] parity((k / S) & 1);
      Out[k * 32 + i32(lane), 0] = a[s][i32(lane), 0];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@54 E0610 {{use (k = 0) reads 'a[0]' before the copy that fills it is observed by warp 2}}
// expected-note@54 {{counterexample: loop 'k' runs 1 iteration (M = 32)}}
// expected-note@53 {{these threads pass this wait (k = 0), but the threads that arrived on its phase had not observed the fill}}
// expected-note@46 {{the phase is completed by relay (k = 0) arriving here from lane 1 of warp 1}}
// expected-note@54 {{the read runs in warp 2}}
// expected-note@35 {{filled here by load (k = 0)}}
