// for ... unroll(N): partial unrolling.  With constant bounds (7 iterations, N = 2) the loop makes 3 trips of
// two copies (i and i + 1) and one copy with i = 6 follows; with a run-time bound the loop runs while
// i + 1 < n and a rolled loop does the rest. (N <= 2^31 - 4: the loop variable plus the unrolled step, i + 4,
// must stay in i32, E0670.)
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --emit=ir -o - | %FileCheck %s --check-prefix=IR
// RUN: %cakec %s -o %t.cubin
target sm_80;

kernel sum7(X: f32[N], Y: f32[1]) requires(N >= 7) grid(1) threads(32) {
  var s: f32 = 0.0;
  // IR: for i in 0 .. 7 unroll(2) {
  for i in 0..7 unroll(2) {
    s += X[i];
  }
  Y[0] = s;
}
// CHECK-LABEL: .entry sum7(
// CHECK: mov.b32 [[I:%r[0-9]+]], 0;
// CHECK: $L_[[L:[0-9]+]]_loop:
// CHECK: ld.global.nc.f32
// CHECK: add.s32 [[I1:%r[0-9]+]], [[I]], 1;
// CHECK: ld.global.nc.f32
// CHECK: add.s32 [[I]], [[I]], 2;
// CHECK-NEXT: setp.lt.s32 [[P:%p[0-9]+]], [[I]], 6;
// CHECK-NEXT: @[[P]] bra $L_[[L]]_loop;
// The remainder: i = 6, a constant (byte offset 24).
// CHECK-NEXT: ld.global.nc.f32 {{%f[0-9]+}}, [%rd{{[0-9]+}}+24];
// CHECK-NOT: ld.global
// CHECK: ret;

kernel sumn(X: f32[N], Y: f32[1], n: i32) requires(n <= N, N <= 2147483644) grid(1) threads(32) {
  var s: f32 = 0.0;
  for i in 0..n unroll(4) {
    s += X[i];
  }
  Y[0] = s;
}
// CHECK-LABEL: .entry sumn(
// Enter the unrolled loop only if a whole trip (i + 3 < n) is left.
// CHECK: add.s32 [[T:%r[0-9]+]], [[I:%r[0-9]+]], 3;
// CHECK-NEXT: setp.ge.s32 [[P:%p[0-9]+]], [[T]], [[N:%r[0-9]+]];
// CHECK-NEXT: @[[P]] bra $L_[[R:[0-9]+]]_rest;
// CHECK-COUNT-4: ld.global.nc.f32
// CHECK: add.s32 [[I]], [[I]], 4;
// CHECK: $L_[[R]]_rest:
// CHECK-NEXT: setp.ge.s32 {{%p[0-9]+}}, [[I]], [[N]];
// CHECK: _restloop:
// CHECK-NEXT: mul.wide.s32
// CHECK: ld.global.nc.f32
// CHECK: add.s32 [[I]], [[I]], 1;
// CHECK: ret;
