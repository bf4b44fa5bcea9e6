// E0915: the explorer runs several schedules; the value warp 0 reads depends on whether warp 1's store
// came first (the race is in global memory, which the race detector does not track).
// RUN: %cakec run %s --shape N=64 --schedules 20 --no-race-check 2>&1 | %FileCheck %s
// CHECK: warning: the outputs depend on the schedule: 'X' element {{[0-9]+}} is {{.*}} under --seed 0 but {{.*}} under --seed {{[0-9]+}} [E0915]
// A clean kernel stays clean under every schedule.
// RUN: %cakec run %s --shape N=64 --schedules 20 -D FIX=1 2>&1 | %FileCheck %s --check-prefix=CLEAN
// CLEAN: cakec run: k: {{[0-9]+}} warp statements; 20 schedules (--seed 0 .. 19)
target sm_80;

kernel k<FIX = 0>(X: f32[N]) requires(N == 64) grid(1) threads(64) {
  barrier b id(1) threads(64);
  if warp == 1 {
    X[lane] = 5.0;
  }
  if FIX == 1 {
    syncthreads;
  } else {
    if warp == 0 {
      arrive b;
    } else {
      sync b;
    }
  }
  if warp == 0 {
    X[32 + lane] = X[lane];
  }
}
