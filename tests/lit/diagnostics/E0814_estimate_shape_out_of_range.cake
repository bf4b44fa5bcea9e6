// E0814: --estimate at a shape that cannot be launched (shape variables are i32) gets no prediction.
// Old cakec predicted a time for N=8000000000.
// RUN: %expect-exit 1 %cakec %s --estimate --shape N=8000000000 2>&1 | %FileCheck %s
// CHECK: cakec: error: --shape N=8000000000 is outside the range of a shape variable (0 to 2147483647) [E0814]
// CHECK-NOT: predicted
// RUN: %cakec %s --estimate --shape N=2147483647 | %FileCheck %s --check-prefix=MAX
// MAX: predicted
// RUN: %cakec --verify-diagnostics %s --estimate --shape N=8000000000
// expected-error@* E0814 {{outside the range of a shape variable}}
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
