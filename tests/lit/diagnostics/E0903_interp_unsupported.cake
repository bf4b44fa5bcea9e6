// E0903: mbarriers are not executed by the interpreter yet: refused, never run half-way.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0903_interp_unsupported.cake:10:5: error: the interpreter does not support the operation 'mbarrier.init' yet [E0903]
target sm_90a;

kernel mbar(X: f32[N]) grid(1) threads(32) {
  mbarrier full arrivals(1);
  X[lane] = 1.0;
  elect {
    mbarrier.init full;
  }
}
