// E0909: the step limit stops a long run (here: 1000 iterations against a limit of 100 statements).
// RUN: %expect-exit 1 %cakec run %s --shape N=1 --max-steps 100 2>&1 | %FileCheck %s
// CHECK: error: the run was stopped after 100 warp statements [E0909]
// RUN: %cakec run %s --shape N=1
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  var s: f32 = 0.0;
  for i in 0..1000 {
    s += 1.0;
  }
  if lane == 0 {
    X[0] = s;
  }
}
