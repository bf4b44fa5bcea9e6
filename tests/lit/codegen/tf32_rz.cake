// tf32.rz(x): x rounded toward zero to tf32.  As a value: cvt.rz.tf32.f32 on sm_90 and newer, the 13 dropped bits
// cleared (NaN and infinity kept) before.  Written into a tf32 fragment element it is the f32 register as it is,
// with no instruction (the tensor core reads only the tf32 bits), where a plain element write rounds to nearest
// (cvt.rn: the two B elements below).  The interpreter rounds alike: 1 + 3t 2^-12 -> 1 + floor(3t / 4) 2^-10.
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=VERIFY
// VERIFY: verified
// RUN: %cakec --no-verify --emit=ptx %s -o - | %FileCheck %s --check-prefix=SM90 --implicit-check-not=cvt.rna
// SM90-COUNT-2: cvt.rz.tf32.f32
// SM90-NOT: cvt.rz.tf32.f32
// SM90-COUNT-2: cvt.rn.tf32.f32
// SM90-NOT: cvt.rn.tf32.f32
// SM90: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// RUN: %cakec --no-verify --emit=ptx --arch sm_80 %s -o - | %FileCheck %s --check-prefix=SM80 --implicit-check-not=cvt.rz
// SM80: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -8192;
// SM80: setp.eq.u32
// SM80: selp.b32
// RUN: %cakec run %s --outputs Y=%t.y.npy,Z=%t.z.npy
// RUN: %python %S/../interp/Inputs/npy_tool.py print %t.y.npy | %FileCheck %s --check-prefix=POS
// POS: f4 (32,)
// POS-NEXT: 1.0
// POS-NEXT: 1.0
// POS-NEXT: 1.0009765625
// POS-NEXT: 1.001953125
// RUN: %python %S/../interp/Inputs/npy_tool.py print %t.z.npy | %FileCheck %s --check-prefix=NEG
// NEG: f4 (32,)
// NEG-NEXT: -1.0
// NEG-NEXT: -1.0
// NEG-NEXT: -1.0009765625
// NEG-NEXT: -1.001953125
target sm_90a;

kernel rz(Y: f32[32], Z: f32[32], C: f32[16, 8] align(16)) grid(1) threads(32) {
  let t = i32(lane);
  let x = 1.0 + f32(t) * 0.000732421875;
  Y[t] = tf32.rz(x);
  Z[t] = tf32.rz(-x);
  var a: frag<mma_a, tf32, 16, 8, 8>;
  var b: frag<mma_b, tf32, 16, 8, 8>;
  var acc: frag<mma_c, f32, 16, 8, 8> = 0.0;
  for e in 0..4 unroll {
    a[e] = tf32.rz(x + f32(e));
  }
  for e in 0..2 unroll {
    b[e] = x - f32(e);
  }
  mma.sync acc += a * b;
  store C[0, 0] <- acc;
}
