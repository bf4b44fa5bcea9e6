// Arithmetic, comparisons, select, conversions and constant folding.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel arith<K = 6>(X: f32[N], Y: i32[N], Z: u32[N], H: bf16[N], P: f32[N], a: f32, n: i32)
  grid(1) threads(32)
{
  let t = i32(tid.x);
  // CHECK-LABEL: .entry arith(
  // Parameter order: tensors, shape variables, scalars.
  // CHECK:      .param .u64 cake_param_P,
  // CHECK-NEXT: .param .s32 cake_shape_N,
  // CHECK-NEXT: .param .f32 cake_param_a,
  // CHECK-NEXT: .param .s32 cake_param_n
  // CHECK: ld.param.f32 [[A:%f[0-9]+]], [cake_param_a];
  // CHECK: ld.param.s32 [[NP:%r[0-9]+]], [cake_param_n];
  let x = X[t];
  // Folding: (K * 4 + 2) / 3 == 8 becomes an immediate; the load index folds into the address.
  // CHECK: mul.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0f41000000;
  let y = x * f32((K * 4 + 2) / 3);
  // Float literals adapt to f32; '!=' on floats is the unordered compare.
  // CHECK: setp.neu.f32 {{%p[0-9]+}}, {{%f[0-9]+}}, 0f3F000000;
  // CHECK: selp.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, {{%p[0-9]+}};
  let s = select(y != 0.5, y, x);
  // CHECK: div.rn.f32
  // CHECK: sub.f32
  X[t] = s / a - 1.0;
  // Integers: signed division/remainder/shift for i32, unsigned for u32.
  // CHECK: div.s32
  // CHECK: rem.s32
  // CHECK: shr.s32
  Y[t] = (Y[t] / n) + (Y[t] % 3) + (Y[t] >> 2);
  // CHECK: div.u32
  // CHECK: shr.u32
  // CHECK: xor.b32
  Z[t] = (Z[t] / u32(n)) ^ (Z[t] >> 1);
  // Conversions: int -> float rounds, float -> int truncates toward zero.
  // CHECK: cvt.rn.f32.s32
  // CHECK: cvt.rzi.s32.f32
  Y[t] = i32(f32(n) * x);
  // bf16 scalar arithmetic goes through f32 and rounds once.
  // CHECK: cvt.f32.bf16
  // CHECK: add.f32
  // CHECK: cvt.rn.bf16.f32
  H[t] = bf16(f32(H[t]) + 1.0);
  // Packing two f32 into bf16x2: the second value is the high half (first source operand).
  // CHECK: cvt.rn.bf16x2.f32 {{%r[0-9]+}}, [[HI:%f[0-9]+]], [[LO:%f[0-9]+]];
  let pair = bf16x2(x, y);
  // CHECK: mov.b32 {[[E0:%rs[0-9]+]], [[E1:%rs[0-9]+]]}
  // CHECK: cvt.f32.bf16 {{%f[0-9]+}}, [[E1]];
  P[t] = f32(pair[1]);
  // pred logic: && without memory reads on the right is and.pred
  // CHECK: setp.lt.s32
  // CHECK: setp.gt.s32
  // CHECK: and.pred
  if t < n && t > 2 {
    P[t] = -x;
    // CHECK: neg.f32
  }
}
