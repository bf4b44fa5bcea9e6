// Shuffles, warp reductions and votes.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel shf(X: f32[N], I: i32[N], H: bf16[N]) grid(1) threads(32) {
  let t = i32(tid.x);
  let x = X[t];
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, [[X:%f[0-9]+]], 16, 31, -1;
  // CHECK: shfl.sync.down.b32 {{%f[0-9]+}}, [[X]], 1, 31, -1;
  // CHECK: shfl.sync.up.b32 {{%f[0-9]+}}, [[X]], 2, 0, -1;
  // CHECK: shfl.sync.idx.b32 {{%f[0-9]+}}, [[X]], 0, 31, -1;
  X[t] = shfl.xor(x, 16) + shfl.down(x, 1) + shfl.up(x, 2) + shfl.idx(x, 0);
  // warp.sum: a 5-step butterfly.
  // CHECK: shfl.sync.bfly.b32 [[S1:%f[0-9]+]], [[V0:%f[0-9]+]], 16, 31, -1;
  // CHECK-NEXT: add.f32 [[V1:%f[0-9]+]], [[V0]], [[S1]];
  // CHECK-NEXT: shfl.sync.bfly.b32 [[S2:%f[0-9]+]], [[V1]], 8, 31, -1;
  // CHECK-NEXT: add.f32 [[V2:%f[0-9]+]], [[V1]], [[S2]];
  // CHECK-NEXT: shfl.sync.bfly.b32 {{%f[0-9]+}}, [[V2]], 4, 31, -1;
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 2, 31, -1;
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, -1;
  X[t] = warp.sum(X[t]);
  // warp.max on i32 uses max.s32 between the steps.
  // CHECK-COUNT-5: max.s32
  I[t] = warp.max(I[t]);
  // A lane index computed at run time; a bf16x2 shuffles its one packed register.
  // CHECK: shfl.sync.idx.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, 31, -1;
  H[2 * t +: 2] = shfl.idx(H[2 * t +: 2], t ^ 1);
  // warp.any / warp.all: one vote each, the result a predicate in every lane.
  // CHECK: setp.lt.f32 [[P:%p[0-9]+]],
  // CHECK-NEXT: vote.sync.any.pred [[ANY:%p[0-9]+]], [[P]], 0xffffffff;
  // CHECK: vote.sync.all.pred {{%p[0-9]+}}, {{%p[0-9]+}}, 0xffffffff;
  let neg = warp.any(x < 0.0);
  let big = warp.all(x > 1.0);
  X[t] = select(neg, 1.0, select(big, 2.0, 3.0));
}
