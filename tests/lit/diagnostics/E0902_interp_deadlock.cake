// E0902: warp 0 waits at syncthreads for warp 1, which waits at named barrier 1 for warp 0.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: error: deadlock in block (0, 0, 0): no warp can make progress [E0902]
// CHECK: note: warp 0 waits here (syncthreads)
// CHECK: note: warp 1 waits here (sync b, barrier 1)
// The same for every schedule.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 --seed 9 2>&1 | %FileCheck %s
target sm_80;

kernel deadlock(X: f32[N]) grid(1) threads(64) {
  barrier b id(1) threads(64);
  if warp == 0 {
    syncthreads;
  } else {
    sync b;
  }
}
