// E0906: cakec run checks requires() as the runtime does, before running anything.
// RUN: %expect-exit 1 %cakec run %s --shape N=30 2>&1 | %FileCheck %s
// CHECK: E0906_interp_requires_failed.cake:7:30: error: the arguments violate 'requires(N % 8 == 0)' [E0906]
// RUN: %cakec run %s --shape N=32
target sm_80;

kernel k(X: f32[N]) requires(N % 8 == 0) grid(1) threads(32) {
  X[lane] = 1.0;
}
