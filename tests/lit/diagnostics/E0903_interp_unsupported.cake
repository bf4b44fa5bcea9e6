// E0903: the split cluster barrier is not executed by the interpreter yet: refused, never run half-way.
// RUN: %expect-exit 1 %cakec run %s --shape N=32 2>&1 | %FileCheck %s
// CHECK: E0903_interp_unsupported.cake:8:3: error: the interpreter does not support the operation 'cluster.arrive' yet [E0903]
target sm_90a;

kernel pair(X: f32[N]) grid(2) threads(32) cluster(2) {
  X[lane] = 1.0;
  cluster.arrive;
  cluster.wait;
}
