// tf32 mma.sync m16n8k8: fragment elements written from f32 values are rounded to tf32 (to nearest, ties to even)
// into their .b32 registers (constants are rounded at compile time), read back as f32 with a mov, and the mma is
// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 with 4 A, 2 B and 4 + 4 f32 C/D registers.  sm_90 and newer
// round with one cvt.rn.tf32.f32; sm_8x has only cvt.rna (ties away), so the rounding is done on the bits there.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s --check-prefixes=CHECK,SM80 --implicit-check-not=cvt.rna
// RUN: %cakec --no-verify %s --arch=sm_90 --emit=ptx -o - | %FileCheck %s --check-prefixes=CHECK,SM90 --implicit-check-not=cvt.rna
target sm_80;

kernel mm(A: f32[16, 8] align(16), B: f32[8, 8] align(16), D: f32[16, 8] align(16)) grid(1) threads(32) {
  shared sa: f32[16, 8] align(16);
  shared sb: f32[8, 8] align(16);
  let g = i32(lane) / 4;
  let q = i32(lane) % 4;
  for i in 0..4 unroll {
    sa[g + 8 * (i % 2), q + 4 * (i / 2)] = A[g + 8 * (i % 2), q + 4 * (i / 2)];
  }
  for i in 0..2 unroll {
    sb[q + 4 * i, g] = B[q + 4 * i, g];
  }
  syncthreads;
  // `= 0.0` on a tf32 fragment: every register holds the tf32 bits of 0.
  // CHECK: mov.b32 %r{{[0-9]+}}, 0;
  var acc: frag<mma_c, f32, 16, 8, 8> = 0.0;
  var a: frag<mma_a, tf32, 16, 8, 8> = 0.0;
  var b: frag<mma_b, tf32, 16, 8, 8>;
  // A element e at row g + 8 * (e % 2), k q + 4 * (e / 2): one shared load and one rounding each; on sm_80 the
  // f32 bits plus 0xfff plus the lowest kept bit, the 13 low bits cleared, NaN and infinity kept.
  // CHECK: ld.shared.f32 [[F0:%f[0-9]+]], [
  // SM90-NEXT: cvt.rn.tf32.f32 [[A0:%r[0-9]+]], [[F0]];
  // SM80-NEXT: mov.b32 [[U:%r[0-9]+]], [[F0]];
  // SM80-NEXT: shr.u32 [[O:%r[0-9]+]], [[U]], 13;
  // SM80-NEXT: and.b32 [[O1:%r[0-9]+]], [[O]], 1;
  // SM80-NEXT: add.u32 [[O2:%r[0-9]+]], [[O1]], 4095;
  // SM80-NEXT: add.u32 [[O3:%r[0-9]+]], [[U]], [[O2]];
  // SM80-NEXT: and.b32 [[O4:%r[0-9]+]], [[O3]], -8192;
  // SM80-NEXT: and.b32 [[E:%r[0-9]+]], [[U]], 2139095040;
  // SM80-NEXT: setp.eq.u32 [[P:%p[0-9]+]], [[E]], 2139095040;
  // SM80-NEXT: selp.b32 [[A0:%r[0-9]+]], [[U]], [[O4]], [[P]];
  // SM90: cvt.rn.tf32.f32 [[A1:%r[0-9]+]], %f{{[0-9]+}};
  // SM90: cvt.rn.tf32.f32 [[A2:%r[0-9]+]], %f{{[0-9]+}};
  // SM90: cvt.rn.tf32.f32 [[A3:%r[0-9]+]], %f{{[0-9]+}};
  // SM80: selp.b32 [[A1:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
  // SM80: selp.b32 [[A2:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
  // SM80: selp.b32 [[A3:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
  for e in 0..4 unroll {
    a[e] = sa[g + 8 * (e % 2), q + 4 * (e / 2)];
  }
  // B element e at k q + 4e, column g.
  // SM90: cvt.rn.tf32.f32 [[B0:%r[0-9]+]], %f{{[0-9]+}};
  // SM90: cvt.rn.tf32.f32 [[B1:%r[0-9]+]], %f{{[0-9]+}};
  // SM80: selp.b32 [[B0:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
  // SM80: selp.b32 [[B1:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
  for e in 0..2 unroll {
    b[e] = sb[q + 4 * e, g];
  }
  // CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {[[C0:%f[0-9]+]], [[C1:%f[0-9]+]], [[C2:%f[0-9]+]], [[C3:%f[0-9]+]]}, {[[A0]], [[A1]], [[A2]], [[A3]]}, {[[B0]], [[B1]]}, {[[C0]], [[C1]], [[C2]], [[C3]]};
  mma.sync acc += a * b;
  // A constant is rounded at compile time: 1 + 2^-11 is a tie, rounded to the even 1.0 (0x3F800000); 1 + 3 * 2^-11
  // is a tie above the odd 1 + 2^-10, rounded up to 1 + 2^-9 (0x3F804000).
  // CHECK: mov.b32 %r{{[0-9]+}}, 1065353216;
  a[0] = 1.00048828125;
  // CHECK: mov.b32 %r{{[0-9]+}}, 1065369600;
  a[2] = 1.00146484375;
  // Reading an element gives its f32 value; writing an f32 expression rounds it again.
  // CHECK: mov.b32 [[R:%f[0-9]+]], %r{{[0-9]+}};
  // CHECK: mul.f32 [[M:%f[0-9]+]], [[R]], 0f40000000;
  // SM90-NEXT: cvt.rn.tf32.f32 %r{{[0-9]+}}, [[M]];
  // SM80-NEXT: mov.b32 %r{{[0-9]+}}, [[M]];
  a[1] = a[1] * 2.0;
  // CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
  mma.sync acc += a * b;
  // CHECK: st.global.v2.f32
  store D[0, 0] <- acc;
}
