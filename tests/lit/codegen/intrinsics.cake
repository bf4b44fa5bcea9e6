// Math intrinsics map to single PTX instructions on f32; 16-bit floats go through f32.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel math(X: f32[N], H: f16[N], I: i32[N]) grid(1) threads(32) {
  let t = i32(tid.x);
  let x = X[t];
  // CHECK: ex2.approx.f32
  // CHECK: rcp.approx.f32
  // CHECK: rsqrt.approx.f32
  // CHECK: sqrt.rn.f32
  // CHECK: lg2.approx.f32
  // CHECK: abs.f32
  X[t] = ex2(x) + rcp(x) + rsqrt(x) + sqrt(x) + lg2(x) + abs(x);
  // The .ftz forms: the MUFU instruction alone, no subnormal scaling around it.
  // CHECK: ex2.approx.ftz.f32
  // CHECK: rcp.approx.ftz.f32
  // CHECK: rsqrt.approx.ftz.f32
  // CHECK: lg2.approx.ftz.f32
  X[t] = ex2.ftz(x) + rcp.ftz(x) + rsqrt.ftz(x) + lg2.ftz(x);
  // CHECK: max.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0f00000000;
  // CHECK: min.f32
  // CHECK: fma.rn.f32
  X[t] = fma(max(x, 0.0), min(x, X[t + 1]), 2.0);
  // CHECK: cvt.f32.f16
  // CHECK: ex2.approx.f32
  // CHECK: cvt.rn.f16.f32
  H[t] = ex2(H[t]);
  // CHECK: max.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 3;
  // CHECK: abs.s32
  // cdiv(a, b) = a / b + (a % b > 0), with no a + b - 1 that could wrap near 2^31; a loaded value may be
  // negative: the quotient and the remainder round toward zero with a bias
  // CHECK: shr.s32 [[SIGN:%r[0-9]+]], [[A:%r[0-9]+]], 31;
  // CHECK-NEXT: shr.u32 [[BIAS:%r[0-9]+]], [[SIGN]], 28;
  // CHECK-NEXT: add.s32 [[B:%r[0-9]+]], [[A]], [[BIAS]];
  // CHECK-NEXT: shr.s32 [[Q:%r[0-9]+]], [[B]], 4;
  // CHECK: and.b32 [[T:%r[0-9]+]], {{%r[0-9]+}}, -16;
  // CHECK-NEXT: sub.s32 [[R:%r[0-9]+]], [[A]], [[T]];
  // CHECK-NEXT: setp.gt.s32 [[P:%p[0-9]+]], [[R]], 0;
  // CHECK-NEXT: selp.b32 [[UP:%r[0-9]+]], 1, 0, [[P]];
  // CHECK-NEXT: add.s32 {{%r[0-9]+}}, [[Q]], [[UP]];
  I[t] = max(I[t], 3) + abs(I[t]) + cdiv(I[t], 16);
  // Constant arguments fold: no instruction for max(4, 9) * 2.
  // CHECK-NOT: max.s32 {{.*}}, 4
  I[t + 1] = max(4, 9) * 2;
  // CHECK: mov.b32 [[C:%r[0-9]+]], 18;
  // CHECK-NEXT: st.global.b32 [%rd{{[0-9]+}}+4], [[C]];
}
