// E0861: a variant's "kernel" must name a kernel of its source.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/unknown_kernel.json -o %t 2>&1 | %FileCheck %s
// CHECK: unknown_kernel.json:5:14: error: variant 'any': its source has no kernel 'rowscal' [E0861]
target sm_80;
