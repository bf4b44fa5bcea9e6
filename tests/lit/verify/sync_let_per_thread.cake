// The sync expansion keeps a let's value while what it read is unchanged; a let that reads the thread
// (warp), directly or through another let, is evaluated again for each thread: warp 1's 32 arrivals complete
// the phase every thread waits for.  (Reusing thread 0's value for every thread would leave the barrier
// without arrivals: a false deadlock, E0611.)
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK-NOT: error
// CHECK: verified: {{[0-9]+}} obligations proven
target sm_90a;
kernel k(A: f32[N]) requires(N >= 1) grid(1) threads(128) {
  mbarrier bar[1] arrivals(32);
  if tid.x == 0 {
    mbarrier.init bar;
    fence.mbarrier_init;
  }
  syncthreads;
  let w = warp;
  let w2 = w + 0;
  if w2 == 1 {
    arrive bar[0];
  }
  wait bar[0] parity(0);
}
