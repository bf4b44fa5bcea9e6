// ldmatrix (x1/x2/x4, .trans), mma.sync m16n8k16 / m16n8k8 (bf16 and f16), and the accumulator store at its
// lane layout: lane holds (row lane/4, cols 2*(lane%4) + 0/1) and the same columns 8 rows further down.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel mm(C: bf16[M, N] align(16), D: f32[M, N] align(16), E: f16[M, N] align(16)) grid(1) threads(32) {
  shared sa: bf16[16, 16] align(128);
  shared sb: bf16[16, 16] align(128);
  shared sh: f16[16, 16] align(128);
  var acc: frag<mma_c, f32, 16, 8, 16>[2] = 0.0;
  var af: frag<mma_a, bf16, 16, 8, 16>;
  var bf: frag<mma_b, bf16, 16, 8, 16>[2];
  var a8: frag<mma_a, bf16, 16, 8, 8>;
  var b8: frag<mma_b, bf16, 16, 8, 8>;
  var acc8: frag<mma_c, f32, 16, 8, 8> = 0.0;
  var hacc: frag<mma_c, f16, 16, 8, 16> = 1.0;
  var ha: frag<mma_a, f16, 16, 8, 16>;
  var hb: frag<mma_b, f16, 16, 8, 16>;
  // `= 0.0` fills every accumulator register; f16 1.0 is 0x3C00 in both halves.
  // CHECK: mov.f32 %f{{[0-9]+}}, 0f00000000;
  // CHECK: mov.b32 %r{{[0-9]+}}, 1006648320;
  // CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%r{{[0-9]+}}];
  ldmatrix af <- sa[lane % 16, (lane / 16) * 8 +: 8];
  // CHECK: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {[[B0:%r[0-9]+]], [[B1:%r[0-9]+]], [[B2:%r[0-9]+]], [[B3:%r[0-9]+]]}, [%r{{[0-9]+}}+
  ldmatrix.trans bf[0], bf[1] <- sb[lane % 16, (lane / 16) * 8 +: 8];
  // CHECK: ldmatrix.sync.aligned.m8n8.x2.shared.b16
  // CHECK: ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16
  ldmatrix a8 <- sa[lane % 16, 0 +: 8];
  ldmatrix.trans b8 <- sb[lane % 8, 0 +: 8];
  // The accumulator is both C and D: {acc} = {af} * {bf} + {acc}.
  // CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {[[C0:%f[0-9]+]], [[C1:%f[0-9]+]], [[C2:%f[0-9]+]], [[C3:%f[0-9]+]]}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {[[B0]], [[B1]]}, {[[C0]], [[C1]], [[C2]], [[C3]]};
  // CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{.*}}, {[[B2]], [[B3]]},
  mma.sync acc[0] += af * bf[0];
  mma.sync acc[1] += af * bf[1];
  // CHECK: mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}}, {
  mma.sync acc8 += a8 * b8;
  // CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
  // CHECK: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
  // CHECK: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}};
  ldmatrix ha <- sh[lane % 16, (lane / 16) * 8 +: 8];
  ldmatrix.trans hb <- sh[lane % 16, 0 +: 8];
  mma.sync hacc += ha * hb;
  // Store as bf16: g = lane >> 2, t = lane & 3; two bf16x2 stores at column 8 (+16 bytes), rows g and g + 8.
  // CHECK: shr.s32 [[G:%r[0-9]+]], [[LANE:%r[0-9]+]], 2;
  // CHECK-NEXT: and.b32 [[T:%r[0-9]+]], [[LANE]], 3;
  // CHECK-NEXT: shl.b32 {{%r[0-9]+}}, [[T]], 1;
  // CHECK: cvt.rn.bf16x2.f32 [[P0:%r[0-9]+]], {{%f[0-9]+}}, {{%f[0-9]+}};
  // CHECK-NEXT: st.global.b32 [%rd{{[0-9]+}}+16], [[P0]];
  // CHECK: cvt.rn.bf16x2.f32 [[P1:%r[0-9]+]], {{%f[0-9]+}}, {{%f[0-9]+}};
  // CHECK-NEXT: st.global.b32 [%rd{{[0-9]+}}+16], [[P1]];
  store C[0, 8] <- bf16(acc[1]);
  // As f32: st.global.v2.f32 pairs.
  // CHECK: st.global.v2.f32 [%rd{{[0-9]+}}], {%f{{[0-9]+}}, %f{{[0-9]+}}};
  // CHECK: st.global.v2.f32 [%rd{{[0-9]+}}], {%f{{[0-9]+}}, %f{{[0-9]+}}};
  store D[16, 0] <- acc[0];
  // An f16 accumulator stores its packed pairs directly.
  // CHECK: st.global.b32
  // CHECK: st.global.b32
  store E[0, 0] <- hacc;
}
