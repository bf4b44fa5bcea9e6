// cp.async ... valid(c): a zero-filling copy.  The source size is a register (16 where c holds, 0 where it
// does not: PTX writes the bytes past src-size as zeros and reads nothing), and the source address is clamped
// to the tensor's base where c fails.  A constant-true c is the plain copy; a constant-false c zero-fills from
// the base.  4- and 8-byte copies (.ca) take the same operand.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel zfill(A: bf16[M, K] align(16)) requires(K % 8 == 0) grid(1) threads(64) {
  shared sa: bf16[16, 64] align(128);
  let t = i32(tid.x);
  let r = t / 8;
  let c = (t % 8) * 8;
  // CHECK: cvta.to.global.u64 [[BASE:%rd[0-9]+]], {{%rd[0-9]+}};
  // CHECK: and.pred [[P:%p[0-9]+]], {{%p[0-9]+}}, {{%p[0-9]+}};
  // CHECK: selp.u32 [[SZ:%r[0-9]+]], 16, 0, [[P]];
  // CHECK: selp.b64 [[SRC:%rd[0-9]+]], {{%rd[0-9]+}}, [[BASE]], [[P]];
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}], [[[SRC]]], 16, [[SZ]];
  cp.async sa[r, c +: 8] <- A[r, c +: 8] valid(r < M && c < K);
  // the constant offset of the source address (column 16: 32 bytes) is added before the clamp
  // CHECK: add.s64 [[OFF:%rd[0-9]+]], {{%rd[0-9]+}}, 32;
  // CHECK: selp.b64 [[SRC2:%rd[0-9]+]], [[OFF]], [[BASE]], {{%p[0-9]+}};
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}+{{[0-9]+}}], [[[SRC2]]], 16, {{%r[0-9]+}};
  cp.async sa[r + 8, c +: 8] <- A[r, c + 16 +: 8] valid(c + 16 < K);
  // CHECK: cp.async.ca.shared.global [{{%r[0-9]+}}], [{{%rd[0-9]+}}], 8, {{%r[0-9]+}};
  cp.async sa[r, c +: 4] <- A[r, c +: 4] valid(r < M);
  // constant conditions fold: true is the plain copy, false zero-fills 16 bytes from the base
  // CHECK-NOT: selp
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}], [{{%rd[0-9]+}}], 16;
  // CHECK-NOT: selp
  // CHECK: cp.async.cg.shared.global [{{%r[0-9]+}}], [[[BASE]]], 16, 0;
  cp.async sa[r, c +: 8] <- A[0, 0 +: 8] valid(true);
  cp.async sa[r, c +: 8] <- A[0, 0 +: 8] valid(false);
  // CHECK: cp.async.commit_group;
  cp.async.commit;
  cp.async.wait 0;
}
