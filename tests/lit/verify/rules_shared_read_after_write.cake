// Rules as data (docs/rules.md): the proposed rule rules/shared_read_after_write.json and the hand-written
// rules/tma_store_fence.json hold on the good kernels (they count as proven obligations), and the planted
// bug - block_reduce_sum without the store of the warp sums, which the built-in families prove - is rejected.
// RUN: %cakec %samples/block_reduce_sum.cake --verify-only --rules %S/../../../rules/shared_read_after_write.json 2>&1 | %FileCheck %s --check-prefix=GOOD
// GOOD: verified: 19 obligations proven
// RUN: %cakec %samples/ampere_gemm.cake --verify-only --rules %S/../../../rules/shared_read_after_write.json
// RUN: %cakec %samples/hopper_gemm_tma_epilogue.cake --verify-only --rules %S/../../../rules/tma_store_fence.json
// RUN: %cakec %samples/hopper_gemm.cake --verify-only --rules %S/../../../rules/tma_store_fence.json
//
// The planted kernel (this file; the sample with the `if lane == 0 { warp_sums[warp] = acc; }` lost):
// RUN: %cakec %s --verify-only 2>&1 | %FileCheck %s --check-prefix=BUILTIN
// BUILTIN: verified: 16 obligations proven
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %S/../../../rules/shared_read_after_write.json 2>&1 | %FileCheck %s
// CHECK: rules_shared_read_after_write.cake:[[@LINE+38]]:11: error: rule 'shared-read-after-write' violated
// CHECK-NOT: error
// The interpreter agrees:
// RUN: %expect-exit 1 %cakec run %s --shape-auto 2>&1 | %FileCheck %s --check-prefix=INTERP
// INTERP: error: shared 'warp_sums' element [0] is read by warp 0 but was never written [E0914]
//
// A rule can be narrowed to roles and buffers: a rule about another buffer, or about a role this kernel does
// not have, does not apply.
// RUN: %cakec %s --verify-only --rules %S/Inputs/rules_other_buffer.json
// Rules are verifier obligations: --rules with --no-verify is a usage error.
// RUN: %expect-exit 2 %cakec %s --no-verify --rules %S/Inputs/rules_other_buffer.json
target sm_80;

kernel block_reduce_sum<THREADS = 256, ITEMS = 4>(X: f32[N] align(16), Partial: f32[G])
  requires(N >= 1, G == cdiv(N, THREADS * ITEMS * 4), THREADS <= 1024)
  grid(cdiv(N, THREADS * ITEMS * 4)) threads(THREADS)
{
  shared warp_sums: f32[THREADS / 32];

  let t = i32(tid.x);
  let base = i32(block.x) * (THREADS * ITEMS * 4);
  var acc: f32 = 0.0;
  for it in 0..ITEMS unroll {
    let i = base + (it * THREADS + t) * 4;
    if i <= N - 4 {
      let v = X[i +: 4];
      acc += (v[0] + v[1]) + (v[2] + v[3]);
    } else {
      for j in i..N {
        acc += X[j];
      }
    }
  }
  acc = warp.sum(acc);
  syncthreads;
  if warp == 0 {
    var s: f32 = 0.0;
    if lane < THREADS / 32 {
      s = warp_sums[lane];
    }
    for k in 0..5 unroll {
      s += shfl.xor(s, 16 >> k);
    }
    if lane == 0 {
      Partial[i32(block.x)] = s;
    }
  }
}
