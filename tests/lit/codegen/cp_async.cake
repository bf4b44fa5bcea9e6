// cp.async: 16-byte copies are .cg (L2 only), 4/8-byte copies .ca; commit and wait groups.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel cpa<S = 3>(A: bf16[M, K] align(16)) grid(1) threads(64) {
  shared sa: bf16[S][16, 64] align(128);
  let t = i32(tid.x);
  let r = t / 8;
  let c = (t % 8) * 8;
  for s in 0..S - 1 unroll {
    // Stage s is 16 * 64 * 2 = 2048 bytes further; the constant column offset s * 64 folds into the global
    // address (128 bytes per stage).
    // CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16;
    // CHECK: cp.async.cg.shared.global [%r{{[0-9]+}}+2048], [%rd{{[0-9]+}}+128], 16;
    cp.async sa[s][r, c +: 8] <- A[r, s * 64 + c +: 8];
    // CHECK: cp.async.commit_group;
    cp.async.commit;
  }
  // CHECK: cp.async.ca.shared.global [%r{{[0-9]+}}+4096], [%rd{{[0-9]+}}+256], 8;
  // CHECK: cp.async.ca.shared.global [%r{{[0-9]+}}+4104], [%rd{{[0-9]+}}+264], 4;
  cp.async sa[2][r, c +: 4] <- A[r, 128 + c +: 4];
  cp.async sa[2][r, c + 4 +: 2] <- A[r, 132 + c +: 2];
  // CHECK: cp.async.wait_group 1;
  // CHECK: cp.async.wait_group 0;
  cp.async.wait S - 2;
  cp.async.wait 0;
}
