// E0854: a variant that does not compile (BS = 2048 threads per block); its own diagnostics come first.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/variant_fails.json -o %t 2>&1 | %FileCheck %s
// CHECK: rowscale.cake:{{.*}}error:
// CHECK: variant_fails.json:5:14: error: variant 'any' ({{.*}}rowscale.cake) does not compile [E0854]
target sm_80;
