// Roles on the SIMT side: each role body runs behind a warp-range guard; R.index / R.warp / R.thread are
// computed from the warp index (tid.x >> 5, read once at entry).
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel roles(X: i32[N]) grid(1) threads(256) {
  // CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
  // CHECK: shr.u32 [[WARP:%r[0-9]+]], [[TID]], 5;
  // role load = warp(0): (warp - 0) >=u 1 skips.
  // CHECK: sub.s32 [[R0:%r[0-9]+]], [[WARP]], 0;
  // CHECK-NEXT: setp.ge.u32 [[P0:%p[0-9]+]], [[R0]], 1;
  // CHECK-NEXT: @[[P0]] bra [[E0:\$L_[0-9]+_end_role_load]];
  // CHECK: [[E0]]:
  role load = warp(0) {
    X[i32(tid.x)] = 1;
  }
  // role math[2] = warps(2..6): warps 2..5, two instances of two warps.
  // CHECK: sub.s32 [[R1:%r[0-9]+]], [[WARP]], 2;
  // CHECK-NEXT: setp.ge.u32 [[P1:%p[0-9]+]], [[R1]], 4;
  // CHECK-NEXT: @[[P1]] bra [[E1:\$L_[0-9]+_end_role_math]];
  // math.index = (warp - 2) / 2, math.warp = (warp - 2) % 2, math.thread = (tid.x - 64) % 64; inside the
  // role the differences are non-negative, so / and % are a shift and a mask
  // CHECK: sub.s32 [[REL:%r[0-9]+]], [[WARP]], 2;
  // CHECK-NEXT: shr.u32 {{%r[0-9]+}}, [[REL]], 1;
  // CHECK: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1;
  // CHECK: sub.s32 [[T:%r[0-9]+]], [[TID]], 64;
  // CHECK-NEXT: and.b32 {{%r[0-9]+}}, [[T]], 63;
  // CHECK: [[E1]]:
  role math[2] = warps(2..6) {
    X[i32(tid.x)] = math.index * 100 + math.warp * 10 + math.thread;
  }
}
