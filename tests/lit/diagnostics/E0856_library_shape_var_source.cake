// E0856: a shape variable the variants read from different dims (M is X's dim 0 in one, dim 1 in the other).
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/shape_var_source.json -o %t 2>&1 | %FileCheck %s
// CHECK: shape_var_source.json:7:14: error: shape variable 'M': variant 't' reads it from dim 1 of parameter 0, variant 'any' from dim 0 of parameter 0 [E0856]
target sm_80;
