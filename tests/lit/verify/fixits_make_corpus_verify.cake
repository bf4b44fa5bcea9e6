// The verifier's fix-its, applied as written by utils/verify-fixits.py, leave no verifier error in any corpus
// kernel whose errors all carry one; and where each fix-it goes.
// RUN: %python %S/../../../utils/verify-fixits.py %cakec --min-fixed-rate 1.0 \
// RUN:   %S/cp_async_zero_fill_pending_read.cake %S/init_not_fenced.cake %S/init_order_fence_before_init.cake \
// RUN:   %S/local_cp_async_missing_wait.cake %S/local_cp_async_wait_too_weak.cake \
// RUN:   %S/local_named_barrier_count_mismatch.cake %S/local_named_barrier_count_warp_select.cake \
// RUN:   %S/local_proxy_fence_tma_store.cake %S/local_proxy_fence_wgmma_operand.cake \
// RUN:   %S/local_wgmma_acc_read_before_wait.cake %S/local_wgmma_fence_after_scale.cake \
// RUN:   %S/local_wgmma_missing_fence.cake %S/local_wgmma_wait_too_weak.cake %S/rules_tma_store_fence.cake \
// RUN:   %S/tmem_fence_missing.cake %S/tmem_ld_not_waited.cake %S/../../../bench/faulty/ampere_gemm_weak_wait.cake \
// RUN:   %S/thread_elect_wait_no_syncwarp.cake %S/thread_lane0_release_wait_all_lanes_write.cake \
// RUN:   %S/thread_lane0_wait_all_lanes_read.cake %S/thread_read_under_other_lane_guard.cake \
// RUN:   %S/thread_tma_issued_by_non_waiter.cake %S/thread_wgmma_elect_wait.cake \
// RUN:   | %FileCheck %s --check-prefix=HARNESS
// HARNESS: faulty files: 23; with a fix-it on every error: 23, of which verify after applying them: 23 (100%)
//
// The fence goes above the barrier after the writes (every writer passes it), not above the elected tma.store.
// RUN: not %cakec --verify-only %S/local_proxy_fence_tma_store.cake 2>&1 | %FileCheck %s --check-prefix=PROXY
// PROXY: local_proxy_fence_tma_store.cake:14:1: fix-it: insert line 'fence.proxy_async;'
//
// A wait followed by a barrier is lowered (by the groups committed since the wait), not doubled above the read.
// RUN: not %cakec --verify-only %S/local_cp_async_wait_too_weak.cake 2>&1 | %FileCheck %s --check-prefix=WAIT
// WAIT: local_cp_async_wait_too_weak.cake:54:19: fix-it: replace with '(S - 1) - 1'
//
// No wait before the barrier that follows the commit: one is inserted above that barrier.
// RUN: not %cakec --verify-only %S/cp_async_zero_fill_pending_read.cake 2>&1 | %FileCheck %s --check-prefix=NOWAIT
// NOWAIT: cp_async_zero_fill_pending_read.cake:12:1: fix-it: insert line 'cp.async.wait 0;'
//
// syncwarp goes after the statement that holds the lane-0 wait, in the block where the other lanes read.
// RUN: not %cakec --verify-only %S/thread_lane0_wait_all_lanes_read.cake 2>&1 | %FileCheck %s --check-prefix=SYNCWARP
// SYNCWARP: thread_lane0_wait_all_lanes_read.cake:43:1: fix-it: insert line 'syncwarp;'
//
// fence.mbarrier_init goes right after the initialising thread's mbarrier.init.
// RUN: not %cakec --verify-only %S/init_not_fenced.cake 2>&1 | %FileCheck %s --check-prefix=INIT
// INIT: init_not_fenced.cake:18:1: fix-it: insert line 'fence.mbarrier_init;'
//
// A statement that shares its line with other code gets the insertion in front of it on that line.
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=INLINE
// INLINE: fixits_make_corpus_verify.cake:[[@LINE+11]]:52: fix-it: insert 'wgmma.fence; '
target sm_90a;
kernel k(C: f32[M, N] align(16)) requires(M % 64 == 0, N % 64 == 0) grid(N / 64, M / 64) threads(128) {
  shared a: bf16[64, 16] align(1024);
  shared b: bf16[64, 16] align(1024);
  let t = i32(tid.x);
  for c in 0..8 unroll {
    a[t / 2, (t % 2) * 8 + c] = bf16(0.0);
    b[t / 2, (t % 2) * 8 + c] = bf16(1.0);
  }
  fence.proxy_async; syncthreads;
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0; wgmma acc += a * b.T;
  wgmma.commit;
  wgmma.wait 0;
  store C[i32(block.y) * 64, i32(block.x) * 64] <- acc;
}
