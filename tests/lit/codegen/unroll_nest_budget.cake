// An unroll nest of 256^3 bodies is refused (E0704) before any of it is lowered: the old code built 2,000,000
// statements of PTX first (17 s, 3.4 GB); `timeout 5` turns that into a failure.
// RUN: timeout 5 %expect-exit 1 %cakec %s --emit=ptx -o %t.ptx 2>&1 | %FileCheck %s
// CHECK: unroll_nest_budget.cake:[[@LINE+5]]:3: error: cannot unroll this loop: the kernel would exceed 2,000,000 unrolled statements [E0704]
// CHECK-NOT: error:
target sm_80;
kernel k(A: f32[N]) requires(N >= 1) grid(1) threads(32) {
  var x: f32 = 0.0;
  for a in 0..256 unroll {
    for b in 0..256 unroll {
      for c in 0..256 unroll {
        x = x + A[(a + b + c) % N];
      }
    }
  }
  A[0] = x;
}
