// An mma_c accumulator converted to bf16 is the A operand of the next m16n8k8 mma.sync (registers only):
// packed pairs (row g, cols 2q..2q+1) and (row g+8) are the k8 A fragment's a0, a1.
// RUN: %cakec %s --verify-only 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
// VERIFY: verified
target sm_80;

kernel k(A: bf16[16, 16], B: bf16[16, 8], V: bf16[8, 8], C: f32[16, 8]) grid(1) threads(32) {
  shared sa: bf16[16, 16];
  shared sb: bf16[16, 8];
  shared sv: bf16[8, 8];
  var af: frag<mma_a, bf16, 16, 8, 16>;
  var bf: frag<mma_b, bf16, 16, 8, 16>;
  var vf: frag<mma_b, bf16, 16, 8, 8>;
  var s: frag<mma_c, f32, 16, 8, 16> = 0.0;
  var o: frag<mma_c, f32, 16, 8, 8> = 0.0;
  ldmatrix af <- sa[lane % 16, (lane / 16) * 8 +: 8];
  ldmatrix.trans bf <- sb[lane % 16, 0 +: 8];
  ldmatrix.trans vf <- sv[lane % 8, 0 +: 8];
  mma.sync s += af * bf;
  // CHECK: cvt.rn.bf16x2.f32 [[P0:%r[0-9]+]]
  // CHECK: cvt.rn.bf16x2.f32 [[P1:%r[0-9]+]]
  // CHECK: mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {{{.*}}}, {[[P0]], [[P1]]}, {%r{{[0-9]+}}}, {{{.*}}};
  mma.sync o += bf16(ex2(s)) * vf;
  store C[0, 0] <- o;
}
