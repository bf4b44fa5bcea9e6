// An fn called in a named barrier's array count is expanded like a call anywhere else (it was 'unknown function',
// E0308): the two barriers take ids 1 and 2, and each warpgroup syncs on its own (the id in a register).  A
// barrier declared inside an fn has its count renamed with the fn's parameters (it was 'use of undeclared name').
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified
// RUN: %cakec --no-verify --emit=ptx %s -o - | %FileCheck %s --check-prefix=PTX
// PTX: bar.sync %r{{[0-9]+}}, 128
// PTX: bar.sync 5, 256
target sm_90a;

fn groups() -> i32 {
  return 2;
}

kernel k(O: f32[256] align(16)) grid(1) threads(256) {
  barrier wg[groups()] id(1) threads(128);
  role math[2] = warpgroups(0..2) {
    O[i32(tid.x)] = 1.0;
    sync wg[math.index];
  }
}

fn block_sync(n: i32) {
  barrier whole[n] id(5) threads(256);
  sync whole[0];
}

kernel k2(O: f32[256] align(16)) grid(1) threads(256) {
  O[i32(tid.x)] = 1.0;
  block_sync(1);
}
