// E0901: cakec run checks every index of every access per lane; thread 40 stores past X[40].
// RUN: %expect-exit 1 %cakec run %s --shape N=40 2>&1 | %FileCheck %s
// CHECK: E0901_interp_out_of_bounds.cake:11:5: error: store of 'X' out of bounds in block (0, 0, 0), thread 40 (warp 1, lane 8): index 40 of dimension 0 is outside [0, 40) [E0901]
// CHECK: note: while running kernel 'oob'
// CHECK: hint: guard the access with an 'if'
// RUN: %cakec run %s --shape N=64
target sm_80;

kernel oob(X: f32[N]) grid(1) threads(64) {
  let i = i32(tid.x);
  X[i] = 1.0;
}
