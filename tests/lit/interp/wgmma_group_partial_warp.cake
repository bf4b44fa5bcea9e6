// wgmma.fence, wgmma.commit and wgmma.wait are .sync.aligned: executed by part of a warp (here one elected
// lane) they are E0904, as wgmma itself is.  The kernel is the verifier corpus's local_wgmma_in_elect.cake.
// RUN: %expect-exit 1 %cakec run %S/../verify/local_wgmma_in_elect.cake --shape-auto 2>&1 | %FileCheck %s
// CHECK: local_wgmma_in_elect.cake:19:5: error: 'wgmma.fence' executed by 1 of the 32 lanes of warp 0 in block (0, 0, 0) [E0904]
target sm_90a;

kernel unused(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
