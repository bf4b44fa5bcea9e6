// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: {{.*}}thread_named_barrier_excludes_readers.cake:47:53: error: use (k = 0) reads 'a[0]' before the copy that fills it is observed by warps 6, 7 [E0610]
// CHECK: {{.*}}thread_named_barrier_excludes_readers.cake:42:9: note: the wait that observes the fill runs only in warp 4 of use (k = 0)
// CHECK: hint: let every warp that does the read wait; or, after the wait, pass a named barrier ('sync BAR') that both the waiting warps and these warps execute; or move the read under the same condition as the wait
// Warp 0 of the consumer warpgroup waits for the fill, then a named barrier of 64 threads orders warps 0
// and 1 after it; warps 2 and 3 (block warps 6, 7) do not pass that barrier but read the stage too.
// Fixed twin: thread_named_barrier_excludes_readers_fixed.cake (the barrier covers the whole warpgroup).
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
  barrier pair id(1) threads(64);
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
        wait full[s] parity((k / S) & 1);
      }
      if use.warp < 2 {
        sync pair;
      }
      Out[k * 32 + i32(lane), i32(use.warp) * 32] = a[s][i32(lane), i32(use.warp)];
      elect {
        arrive empty[s];
      }
    }
  }
}
// ---- expected diagnostics (utils/verify-expectations.py) ----
// expected-error@47 E0610 {{use (k = 0) reads 'a[0]' before the copy that fills it is observed by warps 6, 7}}
// expected-note@47 {{counterexample: loop 'k' runs 1 iteration (M = 32)}}
// expected-note@42 {{the wait that observes the fill runs only in warp 4 of use (k = 0)}}
// expected-note@47 {{the read runs in warps 4..7}}
// expected-note@34 {{filled here by load (k = 0)}}
