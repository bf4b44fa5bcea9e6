// wgmma (sm_90a): shared-memory matrix descriptors (start >> 4, LBO, SBO = 8 rows * span, swizzle mode in
// bits 62-63), one instruction per 16 of K with the start advanced 32 bytes, A from registers, f16
// accumulators, fence / commit / wait, and the masked store of an accumulator at its lane layout.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// Every legal N (8..256 step 8) assembles with ptxas for sm_90a:
// RUN: for n in 8 16 24 32 40 48 56 64 72 80 88 96 104 112 120 128 136 144 152 160 168 176 184 192 200 208 216 224 232 240 248 256; do %cakec %s --no-verify -D BN=$n -o %t.$n.cubin || echo "N=$n FAILED"; done > %t.log 2>&1
// RUN: %FileCheck %s --check-prefix=ALLN --allow-empty < %t.log
// ALLN-NOT: FAILED
target sm_90a;

kernel k<BN = 256>(C: bf16[M, N] align(16), D: f32[M, N] align(16)) grid(1) threads(128) {
  shared a: bf16[2][64, 64] swizzle(128B) align(1024);
  shared b: bf16[2][BN, 64] swizzle(128B) align(1024);
  shared b32: f16[BN, 16] swizzle(32B) align(256);
  shared a32: f16[64, 16] swizzle(32B) align(256);
  var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
  var hacc: frag<wgmma_acc, f16, 64, BN, 16> = 0.0;
  var af: frag<wgmma_a, bf16, 64, BN, 16>;
  let s = i32(block.x) % 2;
  // CHECK: wgmma.fence.sync.aligned;
  wgmma.fence;
  // B descriptor: (addr >> 4) & 0x3fff | LBO 1 << 16; high word SBO 1024 >> 4 = 64 | mode 1 (128B) << 30.
  // CHECK: shr.u32 [[SB:%r[0-9]+]], {{%r[0-9]+}}, 4;
  // CHECK-NEXT: and.b32 [[FB:%r[0-9]+]], [[SB]], 16383;
  // CHECK-NEXT: or.b32 [[LOB:%r[0-9]+]], [[FB]], 65536;
  // CHECK-NEXT: mov.b32 [[HIB:%r[0-9]+]], 1073741888;
  // CHECK: mov.b32 [[HIA:%r[0-9]+]], 1073741888;
  // CHECK: mov.b64 [[DB0:%rd[0-9]+]], {[[LOB]], [[HIB]]};
  // CHECK: mov.b64 [[DA0:%rd[0-9]+]], {{{%r[0-9]+}}, [[HIA]]};
  // CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%f{{[0-9]+}}, {{.*}}}, [[DA0]], [[DB0]], {{%p[0-9]+}}, 1, 1, 0, 0;
  // k-step 1: +32 bytes = +2 in the address field.
  // CHECK: add.s32 [[LOB1:%r[0-9]+]], [[LOB]], 2;
  // CHECK-NEXT: mov.b64 {{%rd[0-9]+}}, {[[LOB1]], [[HIB]]};
  // CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOB]], 6;
  // CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
  // CHECK-NOT: wgmma.mma_async
  // CHECK: wgmma.commit_group.sync.aligned;
  wgmma acc += a[s] * b[s].T;
  wgmma.commit;
  // Both tiles sliced along K: one instruction; B at b + 32768 + 48, A at 8192 + 48.
  // CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 49200;
  // CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 8240;
  // CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
  // CHECK-NOT: wgmma.mma_async
  // CHECK: wgmma.wait_group.sync.aligned 1;
  wgmma acc += a[1][:, 24 +: 16] * b[1][:, 24 +: 16].T;
  wgmma.wait 1;
  // A from registers: four .b32 registers, no trans-a immediate.
  // CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {{%rd[0-9]+}}, {{%p[0-9]+}}, 1, 1, 0;
  wgmma acc += af * b[0][:, 0 +: 16].T;
  // f16 accumulator, 32-byte swizzle: SBO 256 >> 4 = 16, mode 3 -> 0xC0000010.
  // CHECK: mov.b32 {{%r[0-9]+}}, 3221225488;
  // CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f16.f16.f16 {%r{{[0-9]+}}, {{.*}}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%p[0-9]+}}, 1, 1, 0, 0;
  wgmma hacc += a32 * b32.T;
  wgmma.commit;
  // CHECK: wgmma.wait_group.sync.aligned 0;
  wgmma.wait 0;
  // Store at the lane layout: row 16 * (warp % 4) + lane / 4 (+8), column 2 * (lane % 4) + 8j; masked by the
  // tensor's dims; bf16 pairs via one cvt each (second element in the high half).
  // CHECK: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 3;
  // CHECK: setp.lt.s32 [[ROW0:%p[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
  // CHECK: setp.lt.s32 [[ROW8:%p[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
  // CHECK: setp.lt.s32 [[COL0:%p[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
  // Pairs in register order (AccumulatorLayout.cpp): rows +0 and +8 of column block 0, then block 1.
  // CHECK: and.pred [[OK:%p[0-9]+]], [[ROW0]], [[COL0]];
  // CHECK-NEXT: cvt.rn.bf16x2.f32 [[P:%r[0-9]+]], %f1, %f0;
  // CHECK-NEXT: @[[OK]] st.global.b32 [[[ADDR:%rd[0-9]+]]], [[P]];
  // CHECK-NEXT: and.pred {{%p[0-9]+}}, [[ROW8]], [[COL0]];
  // CHECK-NEXT: cvt.rn.bf16x2.f32 {{%r[0-9]+}}, %f3, %f2;
  // CHECK: cvt.rn.bf16x2.f32 {{%r[0-9]+}}, %f5, %f4;
  // CHECK-NEXT: @{{%p[0-9]+}} st.global.b32 [[[ADDR]]+16], {{%r[0-9]+}};
  store C[64, 0] <- bf16(acc);
  // CHECK: @{{%p[0-9]+}} st.global.v2.f32 [{{%rd[0-9]+}}], {%f0, %f1};
  store D[0, 0] <- acc;
}
