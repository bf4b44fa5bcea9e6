// A split-K GEMM tile on sm_80: block (x, y, z) computes the 16 x 8 tile (y, x) of C = A * B over the z-th of
// SPLITS slices of K with mma.sync and adds its partial sum with the fragment reduction (masked at the
// edges). It passes the verifier (bounds, shared races) and assembles for sm_80 and sm_90a.
// RUN: %cakec %s --verify-only
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s -o %t.sm80.cubin
// RUN: %cakec %s --arch sm_90a -o %t.sm90.cubin
// RUN: %cakec %s --estimate --shape M=4096,N=4096,K=4096 | %FileCheck %s --check-prefix=COST
target sm_80;

kernel splitk<SPLITS = 4>(A: bf16[M, K] align(16), B: bf16[K, N] align(16), C: f32[M, N] align(16))
  requires(K % (16 * SPLITS) == 0, K > 0, N % 8 == 0)
  grid(cdiv(N, 8), cdiv(M, 16), SPLITS) threads(32)
{
  shared sa: bf16[16, 16] align(128);
  shared sb: bf16[16, 8] align(128);
  var acc: frag<mma_c, f32, 16, 8, 16> = 0.0;
  var af: frag<mma_a, bf16, 16, 8, 16>;
  var bf: frag<mma_b, bf16, 16, 8, 16>;
  let m0 = i32(block.y) * 16;
  let n0 = i32(block.x) * 8;
  let slice = K / SPLITS;
  for kt in 0..slice / 16 {
    let k0 = i32(block.z) * slice + kt * 16;
    let r = lane / 2;
    let c = (lane % 2) * 8;
    cp.async sa[r, c +: 8] <- A[m0 + r, k0 + c +: 8] valid(m0 + r < M);
    if lane < 16 {
      cp.async sb[lane, 0 +: 8] <- B[k0 + lane, n0 +: 8] valid(n0 < N);
    }
    cp.async.commit;
    cp.async.wait 0;
    syncthreads;
    ldmatrix af <- sa[lane % 16, (lane / 16) * 8 +: 8];
    ldmatrix.trans bf <- sb[lane % 16, 0 +: 8];
    mma.sync acc += af * bf;
    syncthreads;
  }
  // Rows g and g + 8 of the tile, columns 2t and 2t + 1, each pair masked by (row < M, column < N).
  // CHECK: and.pred [[P:%p[0-9]+]]
  // CHECK-NEXT: @[[P]] red.global.add.f32 [[[A:%rd[0-9]+]]], %f{{[0-9]+}};
  // CHECK-NEXT: @[[P]] red.global.add.f32 [[[A]]+4], %f{{[0-9]+}};
  // CHECK: and.pred [[Q:%p[0-9]+]]
  // CHECK-NEXT: @[[Q]] red.global.add.f32
  red.add C[m0, n0] <- acc;
}
// Each of the 4 slices adds 4 f32 per lane: 4096 * 4096 * 4 updates.
// COST: atomics     67.1 M lane updates, 0 serialized behind another lane's update of one address
