// E0904: a warp reduction under a lane-dependent condition runs in 16 of the 32 lanes.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0904_interp_partial_collective.cake:8:15: error: 'warp.sum' executed by 16 of the 32 lanes of warp 0 in block (0, 0, 0) [E0904]
target sm_80;

kernel partial(X: f32[N]) grid(1) threads(32) {
  if lane < 16 {
    X[lane] = warp.sum(1.0);
  }
}
