// samples/blackwell_gemm.cake: the epilogue's tile loop (no inner symbolic loop, so not a tile loop by
// itself) runs exactly as often as the load and issue roles' tile loops (a Z3 proof of equal trip terms), so
// it is driven with their group rather than enumerated as an independent trip count against the tile count
// (which reached the 400-combination cap: E0601 "3 independent symbolic loop trip counts (2704
// combinations ...)" with the epilogue's parity below, and ~6,000 shape queries for infeasible combinations
// on the sample itself).  A wrong epilogue parity ((t / 3) & 1 instead of (t / 2) & 1) is refuted with a
// trace that names the shared tile iteration p#, and nothing is left unproven.
// RUN: sed 's|wait tmem_full\[as\] parity((t / 2) & 1);|wait tmem_full[as] parity((t / 3) \& 1);|' %samples/blackwell_gemm.cake > %t.cake
// RUN: grep -q 'parity((t / 3) & 1)' %t.cake
// RUN: not %cakec --verify-only %t.cake 2>&1 | %FileCheck %s
// CHECK-NOT: E0601
// CHECK: error: mbarrier 'tmem_empty[0]' completes phase 1 while a waiter still waits for phase 0 [E0606]
// CHECK: note: counterexample: loop 'k' runs {{[0-9]+}} iteration{{s?}}, loop 'p' runs {{[0-9]+}} iterations
// CHECK: note: phase 1 is completed by epilogue (p# = {{[0-9]+}}, t = {{[0-9]+}})
// CHECK-NOT: E0601
