// E0855: variants of one library take one argument list; an f16 output where the others write f32 cannot.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/signature.json -o %t 2>&1 | %FileCheck %s
// CHECK: signature.json:6:14: error: variant 'half' takes other arguments than variant 'any': parameter 'Y' is a tensor of f16 instead of a tensor of f32 [E0855]
// CHECK: signature.json:5:14: note: 'any' is declared here
target sm_80;
