// E0858: a guard that sends a shape to a variant whose `requires` refuses it (N % 4 == 0 lets N = 4 through to
// the V = 8 variant, which requires N % 8 == 0); the counterexample shape and the clause are shown.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/too_wide.json -o %t 2>&1 | %FileCheck %s
// CHECK: too_wide.json:10:15: error: dispatch entry 0 ('v8') sends M = {{[0-9]+}}, N = {{[0-9]+}} to a variant that refuses it: requires(N % V == 0) [E0858]
// CHECK: rowscale.cake:6:12: note: the clause of 'v8'
// CHECK: hint: add the clause to the guard
target sm_80;
