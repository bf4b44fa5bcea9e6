// Division and remainder by constants: ptxas expands div/rem by an immediate into a ~20-instruction
// reciprocal sequence, so codegen strength-reduces them using what it knows about the dividend's sign
// (thread indices, shape variables, loop counters from a non-negative start, and sums/products of those).
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel div_const<S = 3>(X: i32[N], U: u32[N]) requires(N >= 1024) grid(1) threads(256) {
  // CHECK-LABEL: .entry div_const(
  // CHECK: mov.u32 [[TIDX:%r[0-9]+]], %tid.x;
  // CHECK: mov.b32 [[TID:%r[0-9]+]], [[TIDX]];
  let t = i32(tid.x);
  // non-negative by a power of two: shift and mask
  // CHECK: shr.u32 {{%r[0-9]+}}, [[TID]], 2;
  // CHECK: and.b32 {{%r[0-9]+}}, [[TID]], 3;
  X[t] = t / 4 + t % 4;
  // non-negative by 3: multiply-high by ceil(2^33 / 3) = 0xAAAAAAAB, shift by 1; the remainder is one mad
  // CHECK: mul.hi.u32 [[H:%r[0-9]+]], [[TID]], 2863311531;
  // CHECK-NEXT: shr.u32 [[Q:%r[0-9]+]], [[H]], 1;
  // CHECK: mul.hi.u32 [[H2:%r[0-9]+]], [[TID]], 2863311531;
  // CHECK-NEXT: shr.u32 [[Q2:%r[0-9]+]], [[H2]], 1;
  // CHECK-NEXT: mad.lo.s32 {{%r[0-9]+}}, [[Q2]], -3, [[TID]];
  X[t] = t / 3 + t % 3;
  // a loop counter from 0 stays non-negative; kt + S - 1 has the lower bound 2
  // CHECK: $L_{{[0-9]+}}_loop:
  // CHECK: add.s32 [[NK0:%r[0-9]+]], {{%r[0-9]+}}, 3;
  // CHECK-NEXT: sub.s32 [[NK:%r[0-9]+]], [[NK0]], 1;
  // CHECK-NEXT: mul.hi.u32 {{%r[0-9]+}}, [[NK]], 2863311531;
  // CHECK-NOT: rem.s32
  // CHECK: $L_{{[0-9]+}}_endloop:
  for kt in 0..N / 256 {
    X[kt] = (kt + S - 1) % S;
  }
  // the sign of a loaded value is unknown: a power of two uses the rounding bias, other divisors stay
  // CHECK: shr.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 31;
  // CHECK-NEXT: shr.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 29;
  // CHECK-NEXT: add.s32
  // CHECK-NEXT: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -8;
  // CHECK-NEXT: sub.s32
  // CHECK: div.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 5;
  X[t] = X[t] % 8 + X[t] / 5;
  // a loaded u32 divides by a power of two with a shift whatever its value
  // CHECK: shr.u32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4;
  U[t] = U[t] / 16;
  // t - 300 may be negative: no unsigned shortcut
  // CHECK: sub.s32 [[D:%r[0-9]+]], [[TID]], 300;
  // CHECK-NEXT: shr.s32 {{%r[0-9]+}}, [[D]], 31;
  X[t] = (t - 300) / 2;
}
