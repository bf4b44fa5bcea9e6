// samples/hopper_gemm_persistent.cake passes the front end and compiles without verification; the verifier cannot
// prove its pipeline yet (ring indices from a mutable tile counter, a tile loop with a run-time step) and says so
// with E0601 "could not prove" - never a refutation (no failed obligation) and never a silent pass.
// RUN: %cakec --no-verify --emit=ir %samples/hopper_gemm_persistent.cake -o %t.cake
// RUN: %cakec --no-verify --verify-diagnostics --emit=ir %t.cake -o %t2.cake
// RUN: %expect-exit 1 %cakec --verify-only %samples/hopper_gemm_persistent.cake 2>&1 | %FileCheck %s
// CHECK: error: could not prove {{.*}}[E0601]
// CHECK-NOT: {{\[E06(0[2-9]|[1-9][0-9])\]}}
