// An fn called in a named barrier's array count is expanded like a call anywhere else (it was 'unknown function',
// E0308): the two barriers take ids 1 and 2, and each warpgroup syncs on its own (the id in a register).
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s
// CHECK: verified
// RUN: %cakec --no-verify --emit=ptx %s -o - | %FileCheck %s --check-prefix=PTX
// PTX: bar.sync %r{{[0-9]+}}, 128
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
