// RUN: %cakec --verify-only --verify-diagnostics -D WIDE=0 %s
// RUN: %expect-exit 1 %cakec --verify-only -D WIDE=1 %s 2>&1 | %FileCheck %s
// A register array used only in the branch of a compile-time `if` that is not compiled takes no registers:
// with WIDE = 0 the 256-register list is never live (the variant verifies); with WIDE = 1 it is, and it
// exceeds the budget.
// CHECK: error: role 'math' needs at least {{[0-9]+}} registers per thread for its register values, more than its budget regs(240) [E0648]
target sm_90a;
kernel k<WIDE = 0>(X: f32[N]) requires(N >= 1) grid(1) threads(256) {
  role load = warpgroup(0) regs(40) {
  }
  role math = warpgroup(1) regs(240) {
    var wide: f32[256];
    var narrow: f32[16];
    if WIDE == 1 {
      for e in 0..256 unroll {
        wide[e] = 1.0;
      }
      X[0] = wide[255];
    } else {
      for e in 0..16 unroll {
        narrow[e] = 1.0;
      }
      X[0] = narrow[15];
    }
  }
}
