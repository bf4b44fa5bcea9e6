// Affine index reassociation (LowerArith.cpp reassociateAffine) and runtime-stride rows (LowerMemory.cpp):
// the unrolled copies of a tile load, idx = v * 128 + t, share the registers of t / 8 and t % 8, and differ
// only in the immediates of their addresses (shared: 16 rows of 144 bytes = 2304 per v) and in one
// mad.wide.u32 of the row stride (16 rows * 2 bytes = 32 * K per v).  A negative constant part is written
// [%r+-N].
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel affine(A: bf16[M, K] align(16), B: bf16[M, 64] align(16)) grid(1) threads(128) {
  shared sa: bf16[64, 72] align(128);
  let t = i32(tid.x);
  // CHECK: shr.u32 [[ROW:%r[0-9]+]], [[T:%r[0-9]+]], 3;
  // CHECK: and.b32 [[COL:%r[0-9]+]], [[T]], 7;
  // CHECK: cvt.u64.u32 [[WROW:%rd[0-9]+]], [[ROW]];
  // CHECK: mul.lo.s64 {{%rd[0-9]+}}, [[WROW]], {{%rd[0-9]+}};
  // CHECK: cp.async.cg.shared.global [[[SA:%r[0-9]+]]], [[[GA:%rd[0-9]+]]], 16;
  // CHECK-NOT: mul.hi
  // CHECK-NOT: div
  // CHECK: shr.u32 {{%r[0-9]+}}, [[T]], 3;
  // CHECK: mad.wide.u32 [[GA1:%rd[0-9]+]], {{%r[0-9]+}}, 32, {{%rd[0-9]+}};
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}+2304], [[[GA1]]], 16;
  // CHECK: mad.wide.u32 [[GA2:%rd[0-9]+]], {{%r[0-9]+}}, 64, {{%rd[0-9]+}};
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}+4608], [[[GA2]]], 16;
  // CHECK: mad.wide.u32 [[GA3:%rd[0-9]+]], {{%r[0-9]+}}, 96, {{%rd[0-9]+}};
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}+6912], [[[GA3]]], 16;
  for v in 0..4 unroll {
    let idx = v * 128 + t;
    let r = idx / 8;
    let c = (idx % 8) * 8;
    cp.async sa[r, c +: 8] <- A[r, c +: 8];
  }
  cp.async.commit;
  cp.async.wait 0;
  // a constant row stride (64 * 2 bytes): the constant part of (r - 1) goes into the immediate, negative
  // CHECK: ld.global.nc.v4.b32 {{.*}}, [%rd{{[0-9]+}}+-128];
  let w = B[t / 8 + 1 - 2, (t % 8) * 8 +: 8];
  sa[t / 8, (t % 8) * 8 +: 8] = w;
}
