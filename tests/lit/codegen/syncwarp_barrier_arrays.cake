// syncwarp lowers to bar.warp.sync with its mask; a named barrier array element to bar.sync / bar.arrive
// with id + index (an immediate for a constant index, a register for ROLE.index).  The kernel verifies
// (each instance of role math meets on its own 128-thread barrier) and assembles with ptxas.
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s -o %t.cubin && test -s %t.cubin
// VERIFY: verified: {{[0-9]+}} obligations proven for sm_80
target sm_80;

kernel per_instance(X: f32[N], Y: f32[N])
  requires(N == 384)
  grid(1) threads(384)
{
  barrier epi[2] id(2) threads(128);   // ids 2 and 3
  barrier done id(1) threads(128);
  role load = warps(0..4) {
    // CHECK: bar.warp.sync 0xffffffff;
    syncwarp;
    // CHECK: bar.warp.sync 0x0000ffff;
    if lane < 16 {
      syncwarp(0x0000ffff);
    }
    // CHECK: bar.sync 1, 128;
    sync done;
  }
  role math[2] = warps(4..12) {
    let v: f32 = X[i32(tid.x)] * 2.0;
    // math.index is computed from the warp: the id is 2 + math.index in a register.
    // CHECK: add.s32 [[ID:%r[0-9]+]], {{%r[0-9]+}}, 2;
    // CHECK-NEXT: bar.sync [[ID]], 128;
    sync epi[math.index];
    // A constant index: the id is an immediate (2 + 1, 2 + 0).
    // CHECK: bar.sync 3, 128;
    // CHECK: bar.arrive 2, 128;
    if math.index == 1 {
      sync epi[1];
    } else {
      arrive epi[0];
    }
    Y[i32(tid.x)] = v;
  }
}
