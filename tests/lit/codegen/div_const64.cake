// i64 division and remainder by constants: ptxas turns a 64-bit div/rem by an immediate into a call to its
// generic division routine, so codegen strength-reduces every one (shifts for powers of two, the rounding
// bias when the sign is unknown, a 64-bit multiply-high otherwise).  bench/interp_vs_device.py runs this
// kernel on the GPU against the interpreter (case int64_divrem).
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s --check-prefix=NOCALL
target sm_80;

// NOCALL-NOT: div.s64
// NOCALL-NOT: rem.s64
kernel div_const64(X: i64[N], Q: i64[N, 12]) grid(cdiv(N, 256)) threads(256) {
  // CHECK-LABEL: .entry div_const64(
  let i = i32(block.x) * 256 + i32(tid.x);
  if i < N {
    let x = X[i];
    // sign unknown, a power of two: the bias (x >> 63) >>> (64 - k), then a shift or a mask
    // CHECK: shr.s64 [[S:%rd[0-9]+]], [[X:%rd[0-9]+]], 63;
    // CHECK-NEXT: shr.u64 [[B:%rd[0-9]+]], [[S]], 62;
    // CHECK-NEXT: add.s64 [[XB:%rd[0-9]+]], [[X]], [[B]];
    // CHECK-NEXT: shr.s64 {{%rd[0-9]+}}, [[XB]], 2;
    Q[i, 0] = x / 4;
    // CHECK: and.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, -4;
    Q[i, 1] = x % 4;
    // sign unknown, 3: |x| times ceil(2^65 / 3), shifted by 1, negated for a negative x
    // CHECK: abs.s64 [[A:%rd[0-9]+]], [[X]];
    // CHECK-NEXT: mul.hi.u64 [[H:%rd[0-9]+]], [[A]], 12297829382473034411U;
    // CHECK-NEXT: shr.u64 {{%rd[0-9]+}}, [[H]], 1;
    // CHECK-NEXT: setp.lt.s64
    // CHECK-NEXT: neg.s64
    // CHECK-NEXT: selp.b64
    Q[i, 2] = x / 3;
    // CHECK: mad.lo.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, -3, [[X]];
    Q[i, 3] = x % 3;
    Q[i, 4] = x / 1000003;
    Q[i, 5] = x % 1000003;
    Q[i, 6] = x / 4611686018427387904;
    Q[i, 7] = x % 9223372036854775807;
    // known non-negative (the thread index times a positive constant): no sign handling
    let y = i64(i32(tid.x)) * 1000000007;
    // CHECK: shr.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 3;
    Q[i, 8] = y / 8;
    // CHECK: and.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 7;
    Q[i, 9] = y % 8;
    // CHECK: mul.hi.u64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{[0-9]+}}U;
    // CHECK-NOT: abs.s64
    // CHECK: mad.lo.s64
    Q[i, 10] = y / 7;
    Q[i, 11] = y % 7;
  }
}
