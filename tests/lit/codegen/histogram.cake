// A histogram: per-block counts in shared memory with red.shared.add.u32 (many threads hit one bin: no race
// between atomics), a barrier, then one red.global.add.u32 per non-empty bin. The bin `X[i] % BINS` is read
// from memory; the verifier bounds it by the modulus. Verified, and assembles for sm_80 and sm_90a.
// RUN: %cakec %s --verify-only
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s -o %t.sm80.cubin
// RUN: %cakec %s --arch sm_90a -o %t.sm90.cubin
// RUN: %cakec %s --estimate --shape N=1048576 | %FileCheck %s --check-prefix=COST
target sm_80;

kernel histogram<BINS = 256>(X: u32[N], H: u32[BINS]) requires(N > 0) grid(cdiv(N, 256)) threads(BINS) {
  shared counts: u32[BINS];
  let t = i32(tid.x);
  counts[t] = 0;
  syncthreads;
  let i = i32(block.x) * BINS + t;
  if i < N {
    // CHECK: red.shared.add.u32 [%r{{[0-9]+}}], 1;
    red.add counts[i32(X[i] % BINS)], 1;
  }
  syncthreads;
  let c = counts[t];
  if c != 0 {
    // CHECK: red.global.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
    red.add H[t], c;
  }
}
// COST: atomics     {{.*}}lane updates
