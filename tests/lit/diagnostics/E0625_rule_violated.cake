// E0625: a rule of the --rules file is violated.  The kernel is the planted bug of tests/python/test_rules.py
// reduced by cakeir.harness.reduce (block_reduce_sum without the store of the warp sums): the built-in
// families prove it, the interpreter stops with E0914, and the proposed rule (rules/shared_read_after_write.json)
// rejects it at the read, with a note at the rule.
// RUN: %cakec %s --verify-only
// RUN: %expect-exit 1 %cakec %s --verify-only --rules %S/../../../rules/shared_read_after_write.json 2>&1 | %FileCheck %s
// CHECK: E0625_rule_violated.cake:[[@LINE+12]]:11: error: rule 'shared-read-after-write' violated: a shared-memory read of an array that nothing in the kernel wrote before it (uninitialised shared memory) (shared.load of 'warp_sums' in the kernel: on every path no shared.store or stmatrix or cp.async or tma.load precedes it) [E0625]
// CHECK: shared_read_after_write.json:5:15: note: rule 'shared-read-after-write' is defined here
// RUN: %expect-exit 1 %cakec run %s --shape-auto 2>&1 | %FileCheck %s --check-prefix=INTERP
// INTERP: [E0914]
target sm_80;
kernel block_reduce_sum<THREADS = 256, ITEMS = 4>(X: f32[N] align(16), Partial: f32[G])
  grid(cdiv(N, THREADS * ITEMS * 4)) threads(THREADS)
{
  shared warp_sums: f32[THREADS / 32];
  if warp == 0 {
    var s: f32 = 0.0;
    if lane < THREADS / 32 {
      s = warp_sums[lane];
    }
  }
}
