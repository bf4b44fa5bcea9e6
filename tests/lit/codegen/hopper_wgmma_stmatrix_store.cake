// A wgmma accumulator stored as bf16/f16 into a *shared* tile lowers to stmatrix.x4 (x2 for an odd number of
// 8-column blocks): matrices (rows +0, cols +0), (+8, +0), (+0, +8), (+8, +8) of each 16 x 16 block; lane l
// addresses row 16 * (warp % 4) + l % 16, column 8 * (l / 16).  Swizzled tiles get the XOR of bits [7,10) of
// the offset into bits [4,7) (computed once per lane: a row is one swizzle span); unswizzled tiles use
// immediate offsets.  32-bit outputs and column origins not provably 16-byte aligned keep per-pair stores.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s --check-prefixes=CHECK,BN256
// RUN: %cakec %s --no-verify -D BN=128 --emit=ptx -o - | %FileCheck %s --check-prefixes=CHECK,BN128
// Both assemble with ptxas (sm_90a), without spills:
// RUN: %cakec %s --no-verify -v -o %t.256.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %s --no-verify -D BN=128 -v -o %t.128.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
target sm_90a;

kernel k<BN = 256>(c: i32) grid(1) threads(128) {
  shared cs: bf16[2][64, 64] swizzle(128B) align(1024);   // the TMA 128B-swizzle box layout
  shared cu: bf16[64, BN] align(1024);                     // a [64, BN] box without swizzle
  shared ch: f16[64, 24] align(16);
  shared cf: f32[64, 8] align(16);
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var wide: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
  var hacc: frag<wgmma_acc, f16, 64, 24, 16> = 0.0;
  var narrow: frag<wgmma_acc, f32, 64, 8, 16> = 0.0;

  // CHECK: mov.u32 [[LANE:%r[0-9]+]], %laneid;
  // CHECK: mov.u32 [[SMEM:%r[0-9]+]], cake_smem;
  // 64 x 64 into stage 1 (offset 8192) of the swizzled tile.  Lane offset: row * 128 + column * 2.
  // CHECK: and.b32 [[LROW:%r[0-9]+]], [[LANE]], 15;
  // CHECK: shr.s32 [[HALF:%r[0-9]+]], [[LANE]], 4;
  // CHECK-NEXT: shl.b32 [[LCOL:%r[0-9]+]], [[HALF]], 3;
  // CHECK-NEXT: shl.b32 [[ROWB:%r[0-9]+]], {{%r[0-9]+}}, 7;
  // CHECK-NEXT: mad.lo.s32 [[LIN:%r[0-9]+]], [[LCOL]], 2, [[ROWB]];
  // XOR term: bits [7,10) of the offset from the array's start, moved to [4,7).
  // CHECK-NEXT: add.s32 [[FULL:%r[0-9]+]], [[LIN]], 8192;
  // CHECK-NEXT: shr.u32 [[SH:%r[0-9]+]], [[FULL]], 3;
  // CHECK-NEXT: and.b32 [[X:%r[0-9]+]], [[SH]], 112;
  // Block 0: columns 0..15, registers (f0,f1) (f2,f3) (f4,f5) (f6,f7): rows g / g+8 of column blocks 0 and 1.
  // CHECK-NEXT: cvt.rn.bf16x2.f32 [[M0:%r[0-9]+]], %f1, %f0;
  // CHECK-NEXT: cvt.rn.bf16x2.f32 [[M1:%r[0-9]+]], %f3, %f2;
  // CHECK-NEXT: cvt.rn.bf16x2.f32 [[M2:%r[0-9]+]], %f5, %f4;
  // CHECK-NEXT: cvt.rn.bf16x2.f32 [[M3:%r[0-9]+]], %f7, %f6;
  // CHECK-NEXT: add.s32 [[O0:%r[0-9]+]], [[LIN]], 8192;
  // CHECK-NEXT: xor.b32 [[S0:%r[0-9]+]], [[O0]], [[X]];
  // CHECK-NEXT: add.s32 [[A0:%r[0-9]+]], [[SMEM]], [[S0]];
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16 [[[A0]]], {[[M0]], [[M1]], [[M2]], [[M3]]};
  // Blocks 1..3: 32 bytes further each, the same XOR term.
  // CHECK: add.s32 [[O1:%r[0-9]+]], [[LIN]], 8224;
  // CHECK-NEXT: xor.b32 {{%r[0-9]+}}, [[O1]], [[X]];
  // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
  // CHECK: add.s32 [[O2:%r[0-9]+]], [[LIN]], 8256;
  // CHECK-NEXT: xor.b32 {{%r[0-9]+}}, [[O2]], [[X]];
  // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16
  // CHECK: add.s32 [[O3:%r[0-9]+]], [[LIN]], 8288;
  // CHECK-NEXT: xor.b32 {{%r[0-9]+}}, [[O3]], [[X]];
  // CHECK-NEXT: add.s32
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{%r[0-9]+}}], {{{.*}}};
  // CHECK-NOT: st.shared
  store cs[1][0, 0] <- bf16(acc);

  // 64 x BN without swizzle at cu (offset 16384): one lane address, the blocks are immediates 32 bytes apart;
  // rows are BN * 2 bytes apart (shl 9 for 256, 8 for 128).
  // BN256: shl.b32 [[RB:%r[0-9]+]], {{%r[0-9]+}}, 9;
  // BN128: shl.b32 [[RB:%r[0-9]+]], {{%r[0-9]+}}, 8;
  // CHECK-NEXT: mad.lo.s32 [[L2:%r[0-9]+]], {{%r[0-9]+}}, 2, [[RB]];
  // CHECK-NEXT: add.s32 [[B2:%r[0-9]+]], [[SMEM]], [[L2]];
  // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16 [[[B2]]+16384], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16 [[[B2]]+16416],
  // BN128: stmatrix.sync.aligned.m8n8.x4.shared.b16 [[[B2]]+16608],
  // BN128-NOT: [[B2]]+16640]
  // BN256: stmatrix.sync.aligned.m8n8.x4.shared.b16 [[[B2]]+16864], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
  // BN256-NOT: [[B2]]+16896]
  store cu[0, 0] <- bf16(wide);

  // f16 accumulator, 24 columns: packed registers as they are (d[2j] rows g, d[2j+1] rows g+8); 3 blocks of 8
  // columns -> one x4 and one x2 (matrices rows +0 / +8 of the last block).
  // CHECK: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{%r[0-9]+}}+{{[0-9]+}}], {[[H0:%r[0-9]+]], [[H1:%r[0-9]+]], [[H2:%r[0-9]+]], [[H3:%r[0-9]+]]};
  // CHECK-NEXT: stmatrix.sync.aligned.m8n8.x2.shared.b16 [{{%r[0-9]+}}+{{[0-9]+}}], {[[H4:%r[0-9]+]], [[H5:%r[0-9]+]]};
  store ch[0, 0] <- hacc;

  // A column origin that is a multiple of 8 only at run time with no proof: per-pair 4-byte stores.
  // CHECK-NOT: stmatrix
  // CHECK: st.shared.b32
  store cu[0, c] <- bf16(narrow);
  // f32 output: per-pair 8-byte stores.
  // CHECK-NOT: stmatrix
  // CHECK: st.shared.v2.f32
  store cf[0, 0] <- narrow;
  // A provable multiple of 8 (8 * c): stmatrix again.
  // CHECK: stmatrix.sync.aligned.m8n8.x2.shared.b16
  store cu[0, 8 * c + 16] <- bf16(narrow);
}
