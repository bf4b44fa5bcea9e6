// E0905: integer division by zero in lane 3.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0905_interp_division_by_zero.cake:7:13: error: integer division by zero in block (0, 0, 0), thread 3 (warp 0, lane 3) [E0905]
target sm_80;

kernel div(X: i32[N]) grid(1) threads(32) {
  X[lane] = 7 / (lane - 3);
}
