// E0911: every lane arrives on a barrier that expects one arrival and transaction bytes: the second lane's
// arrival overflows the phase (which still waits for its bytes).
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0911_interp_mbarrier_overflow.cake:15:3: error: more arrivals on mbarrier 'full' than its arrivals(1) in phase 0, in block (0, 0, 0), thread 1 (warp 0, lane 1) [E0911]
target sm_90;

kernel k(X: f32[N]) grid(1) threads(32) {
  shared t: f32[32];
  mbarrier full arrivals(1);
  if lane == 0 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  syncthreads;
  arrive full expect_tx(128);
  X[lane] = 1.0;
}
