// A gather from a shared array of several levels, `buf[s][w][acc.col]`: the point indices of every level lead the
// element's (one ld.shared per distinct column).  buf[s][w][c] = 1000 s + 100 w + c, so C[r, c] = 1100 + c.
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=VERIFY
// VERIFY: verified
// RUN: %cakec --no-verify --emit=ptx %s -o - | %FileCheck %s --check-prefix=PTX
// PTX: ld.shared.f32
// RUN: %cakec run %s --outputs C=%t.c.npy
// RUN: %python %S/../interp/Inputs/npy_tool.py print %t.c.npy | %FileCheck %s
// CHECK: f4 (64, 8)
// CHECK-NEXT: 1100
// CHECK-NEXT: 1101
// CHECK-NEXT: 1102
// CHECK-NEXT: 1103
// CHECK-NEXT: 1104
// CHECK-NEXT: 1105
// CHECK-NEXT: 1106
// CHECK-NEXT: 1107
// CHECK-NEXT: 1100
target sm_90a;

kernel g(C: f32[64, 8] align(16)) grid(1) threads(128) {
  shared buf: f32[2][2][8];
  let t = i32(tid.x);
  if t < 32 {
    buf[t / 16][(t / 8) % 2][t % 8] = f32(1000 * (t / 16) + 100 * ((t / 8) % 2) + t % 8);
  }
  syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 8, 16> = 0.0;
  let s = 1;
  let w = i32(block.x) + 1;
  store C[0, 0] <- acc + buf[s][w][acc.col];
}
