// Storing a column slice of a wgmma accumulator: store T[r0, c0] <- bf16(acc)[:, 64 * j +: 64] takes the
// registers of column groups 8j .. 8j+7 (4 f32 registers per 8 columns): into a 64-wide 128B-swizzled
// staging tile with stmatrix, and into a global tensor with masked stores.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
target sm_90a;

kernel k(D: f32[M, N] align(16)) grid(1) threads(128) {
  shared cs: bf16[2][64, 64] swizzle(128B) align(1024);
  var acc: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  // Columns 64..127: registers %f32.. (the first pair of group 8 is %f32, %f33; its rows +8 pair %f34, %f35).
  // CHECK: cvt.rn.bf16x2.f32 {{%r[0-9]+}}, %f33, %f32;
  // CHECK-NEXT: cvt.rn.bf16x2.f32 {{%r[0-9]+}}, %f35, %f34;
  // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
  // CHECK-NOT: %f31,
  store cs[1][0, 0] <- bf16(acc)[:, 64 +: 64];
  for j in 0..1 unroll {
    // CHECK: st.global.v2.f32 [{{%rd[0-9]+}}], {%f0, %f1};
    // CHECK: st.global.v2.f32 [{{%rd[0-9]+}}+32], {%f4, %f5};
    // CHECK-NOT: %f32, %f33
    // CHECK: ret;
    store D[0, 64 * j] <- acc[:, 64 * j +: 32];
  }
}
