// Column vectors: colsum / colmax / colmin by three butterfly shuffles across the lanes that share a column
// (xor 4, 8, 16), colargmin carrying each element's tile row, a column vector broadcast along the rows
// (acc - colmax(acc)), .col of a column vector in a gather, column-vector stores and red.add along the last
// index from lanes 0..3, and no shared-memory traffic for accumulator elements.
// RUN: %cakec %s --verify-only 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s --check-prefix=NOSHARED
// RUN: %cakec %s --no-verify -o %t.cubin
// VERIFY: verified
// NOSHARED-NOT: ld.shared
// NOSHARED-NOT: st.shared
// NOSHARED-NOT: stmatrix
target sm_90a;

kernel fragment_columns(scale: f32[N], S: f32[4, N], Cmax: f32[4, N], R: i32[4, N], G: f32[N]) grid(1) threads(128) {
  shared a: bf16[64, 64] swizzle(128B) align(1024);
  shared b: bf16[64, 64] swizzle(128B) align(1024);
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;
  wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 4, 31, -1;
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 8, 31, -1;
  // CHECK: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 16, 31, -1;
  let mx = colmax(acc);
  let centred = acc - mx;
  let cs = colsum(ex2(centred));
  let w = scale[cs.col];
  let mn = colmin(acc * w);
  var best: frag<wgmma_col, f32, 64>;
  var row: frag<wgmma_col, i32, 64>;
  colargmin best, row <- acc;
  // Each warp's column sums over its 16-row band go to its own row of S (lanes 0..3 write).
  // CHECK: setp.eq.s32 {{%p[0-9]+}}, {{%r[0-9]+}}, 0;
  // CHECK: st.global.f32
  store S[i32(warp), 0] <- cs;
  store Cmax[i32(warp), 0] <- mn;
  store R[i32(warp), 0] <- row;
  // The four warps' partial sums meet in global memory.
  // CHECK: red.global.add.f32
  red.add G[0] <- colsum(acc);
}

kernel mma_columns(O: f32[16, 8], V: f32[8], I: i32[8]) grid(1) threads(32) {
  shared a: bf16[16, 16];
  shared b: bf16[8, 16];
  var fa: frag<mma_a, bf16, 16, 8, 16>;
  var fb: frag<mma_b, bf16, 16, 8, 16>;
  var c: frag<mma_c, f32, 16, 8, 16> = 0.0;
  ldmatrix fa <- a[lane % 16, lane / 16 * 8 +: 8];
  ldmatrix fb <- b[lane % 8, lane / 8 % 2 * 8 +: 8];
  mma.sync c += fa * fb;
  var v: frag<mma_col, f32, 8>;
  var i: frag<mma_col, i32, 8>;
  // CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16, 31, -1;
  colargmax v, i <- c;
  store O[0, 0] <- c * rcp(colsum(c));
  store V[0] <- v;
  store I[0] <- i;
}
