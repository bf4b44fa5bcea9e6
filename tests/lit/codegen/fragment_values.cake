// Fragments as values: a bias gather at the accumulator's columns (one masked load per distinct column: 16
// for a 64-column tile), masks from .col, row reductions by quad shuffles (xor 1, xor 2), an online-softmax
// step broadcasting row vectors, P converted to bf16 as the register A operand of the next wgmma (fenced),
// rowargmin, row-vector stores by lane q == 0, and no shared-memory traffic for accumulator elements.
// RUN: %cakec %s --verify-only 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s --check-prefix=NOSHARED
// RUN: %cakec %s --no-verify -o %t.cubin
// VERIFY: verified
// NOSHARED-NOT: ld.shared
// NOSHARED-NOT: st.shared
// NOSHARED-NOT: stmatrix
target sm_90a;

kernel fragment_values<BN = 64>(bias: f32[N], C: bf16[M, N] align(16), L: f32[M], I: i32[M]) grid(1) threads(128) {
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  shared b: bf16[BN, 64] swizzle(128B) align(1024);
  shared v: bf16[BN, 64] swizzle(128B) align(1024);
  var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
  var o: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var m: frag<wgmma_row, f32, 64> = -inf;
  wgmma.fence;
  wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  // CHECK-COUNT-16: @%p{{[0-9]+}} ld.global.nc.f32
  // CHECK-NOT: ld.global.nc.f32
  acc = acc + bias[acc.col];
  acc = select(acc.col < N, acc, -inf);
  acc[3] = 2.0 * acc[3];
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, -1;
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 2, 31, -1;
  let mx = rowmax(acc);
  m = max(m, mx);
  let p = ex2(acc - m);
  let l = rowsum(p);
  o *= ex2(m - mx);
  wgmma.fence;
  // CHECK: cvt.rn.bf16x2.f32
  // CHECK: wgmma.fence.sync.aligned;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}
  wgmma o += bf16(p) * v.T;
  wgmma.commit;
  wgmma.wait 0;
  var best: frag<wgmma_row, f32, 64>;
  var bi: frag<wgmma_row, i32, 64>;
  rowargmin best, bi <- acc;
  store C[0, 0] <- bf16(o * rcp(l));
  store L[0] <- m + lg2(l);
  store I[0] <- bi;
  store C[0, 0] <- bf16(max(acc, 0.0));
}
