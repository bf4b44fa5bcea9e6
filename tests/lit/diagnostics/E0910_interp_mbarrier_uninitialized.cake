// E0910: an arrive on an mbarrier that no thread initialised (the init is under a condition no thread meets).
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0910_interp_mbarrier_uninitialized.cake:15:12: error: mbarrier 'full' used before mbarrier.init in block (0, 0, 0), thread 0 (warp 0, lane 0) [E0910]
target sm_90;

kernel k(X: f32[N]) grid(1) threads(32) {
  mbarrier full arrivals(1);
  if lane == 32 {
    mbarrier.init full;
    fence.mbarrier_init;
  }
  syncthreads;
  X[lane] = 1.0;
  elect {
    arrive full;
  }
  wait full parity(0);
}
