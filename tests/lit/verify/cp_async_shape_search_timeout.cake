// The cp.async-group family's search for the smallest shapes runs out of its solver limit at
// --verify-timeout=1: that is a timeout (E0602), not "no shape satisfying requires(...)" (E0601).
// RUN: %expect-exit 1 %cakec %S/local_cp_async_missing_wait.cake --verify-only --verify-timeout=1 2>&1 | %FileCheck %s
// CHECK-NOT: no shape satisfying requires
// CHECK: local_cp_async_missing_wait.cake:5:8: error: the solver timed out after 1 ms proving that every cp.async.wait and tma.store.wait covers the shared accesses after it [E0602]
// CHECK-NOT: no shape satisfying requires
