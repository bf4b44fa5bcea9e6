// The fragment reduction red.add T[r0, c0] <- ACC: every element of an f32 accumulator added at its lane layout
// (the layout of the fragment `store`, AccumulatorLayout.cpp), masked by T's last two dims in global memory.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
target sm_90a;

kernel k(C: f32[M, N] align(16), D: f32[M, N]) grid(1) threads(128) {
  shared part: f32[64, 32] align(128);
  var acc: frag<wgmma_acc, f32, 64, 32, 16> = 1.0;
  var mc: frag<mma_c, f32, 16, 8, 16> = 2.0;
  let r0 = i32(block.x) * 64;
  // wgmma_acc 64 x 32 into global: per lane the row 16 * (warp % 4) + lane / 4 (+8) and column 2 * (lane % 4)
  // + 8j; a row mask per row and a column mask per column block, two masked red.f32 per pair.
  // CHECK: setp.lt.s32 [[ROW0:%p[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
  // CHECK: setp.lt.s32 [[ROW8:%p[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
  // CHECK: setp.lt.s32 [[COL0:%p[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
  // CHECK: and.pred [[P:%p[0-9]+]], [[ROW0]], [[COL0]];
  // CHECK-NEXT: @[[P]] red.global.add.f32 [[[A0:%rd[0-9]+]]], %f{{[0-9]+}};
  // CHECK-NEXT: @[[P]] red.global.add.f32 [[[A0]]+4], %f{{[0-9]+}};
  // CHECK: and.pred [[P8:%p[0-9]+]], [[ROW8]], [[COL0]];
  // CHECK-NEXT: @[[P8]] red.global.add.f32
  // The fourth column block is 24 columns (96 bytes) right of the first.
  // CHECK: @{{%p[0-9]+}} red.global.add.f32 [%rd{{[0-9]+}}+96]
  // CHECK-NOT: red.global.add.v2
  red.add C[r0, 0] <- acc;
  // Into shared memory: no vector form, two red.shared.add.f32 per pair, no masks.
  // CHECK-NOT: @{{%p[0-9]+}} red.shared
  // CHECK: red.shared.add.f32 [%r{{[0-9]+}}{{(\+[0-9]+)?}}], %f{{[0-9]+}};
  // CHECK: red.shared.add.f32 [%r{{[0-9]+}}+{{[0-9]+}}], %f{{[0-9]+}};
  red.add part[0, 0] <- acc;
  // mma_c m16n8 into global: rows g and g + 8, column 2t; masked too.
  // CHECK: and.pred [[Q:%p[0-9]+]]
  // CHECK-NEXT: @[[Q]] red.global.add.f32
  red.add D[r0 + 16, 8] <- mc;
}
