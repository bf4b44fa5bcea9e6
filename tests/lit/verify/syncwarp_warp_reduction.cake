// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
// The cost model counts one bar.warp.sync per warp and syncwarp (4 blocks x 5), and no block barrier.
// RUN: %cakec %s --estimate --shape N=128,G=4 --json | %FileCheck %s --check-prefix=COST
// COST: "barriers":0
// COST-SAME: "warp_syncs":20
// A warp-level tree reduction through shared memory: each step's lanes read what other lanes of the same
// warp wrote in the step before, so a syncwarp separates the steps.  The race check orders the lanes of one
// warp at each syncwarp (tests/lit/verify/race_warp_reduction_missing_syncwarp.cake drops one).
// VERIFY: verified: {{[0-9]+}} obligations proven for sm_80
// CHECK-LABEL: .entry warp_sum(
// CHECK-COUNT-5: bar.warp.sync 0xffffffff;
// CHECK-NOT: bar.sync
// CHECK: ret;
target sm_80;

kernel warp_sum(X: f32[N], Y: f32[G])
  requires(N == G * 32)
  grid(G) threads(32)
{
  shared buf: f32[32];
  buf[lane] = X[i32(block.x) * 32 + lane];
  syncwarp;
  if lane < 16 { buf[lane] = buf[lane] + buf[lane + 16]; }
  syncwarp;
  if lane < 8 { buf[lane] = buf[lane] + buf[lane + 8]; }
  syncwarp;
  if lane < 4 { buf[lane] = buf[lane] + buf[lane + 4]; }
  syncwarp;
  if lane < 2 { buf[lane] = buf[lane] + buf[lane + 2]; }
  syncwarp;
  if lane == 0 { Y[i32(block.x)] = buf[0] + buf[1]; }
}
