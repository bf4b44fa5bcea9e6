// cakec run --shape-auto without one value that satisfies requires(..) for every shape variable: K must be
// 64 and M a multiple of 128, so the first combination (M = 256, K = 64) is taken; --num-sms 5 makes the
// persistent grid five blocks, each writing the grid size at its index.
// RUN: %cakec run %s --shape-auto --num-sms 5 --outputs X=%t.x.npy --schedules 3 --seed 2 2>&1 | %FileCheck %s --check-prefix=STATS
// STATS: cakec run: k: {{[0-9]+}} warp statements; 3 schedules (--seed 2 .. 4)
// RUN: %python %S/Inputs/npy_tool.py print %t.x.npy | %FileCheck %s
// CHECK: f4 (256,)
// CHECK-NEXT: 5.0
// CHECK-NEXT: 5.0
// CHECK-NEXT: 5.0
// CHECK-NEXT: 5.0
// CHECK-NEXT: 5.0
// CHECK-NEXT: 0.0
target sm_80;

kernel k(X: f32[M], Y: f32[K]) requires(M % 128 == 0, K == 64) grid(num_sms) threads(32) {
  if lane == 0 {
    X[block.x] = f32(grid_dim.x);
  }
}
