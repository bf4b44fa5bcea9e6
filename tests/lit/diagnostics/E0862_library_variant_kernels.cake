// E0862: the kernels of a variant that launches several must fit together, and its "workspace" must name
// their tensor parameters: 'split' lists a workspace Z that no kernel declares.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/split_bad_workspace.json -o %t 2>&1 | %FileCheck %s
// CHECK: split_bad_workspace.json:6:14: error: variant 'split': workspace 'Z' is no parameter of the variant's kernels [E0862]
target sm_80;
// A workspace dim that only the workspace carries (W: f32[L, M]) cannot be sized at dispatch:
// RUN: rm -rf %t2 && %expect-exit 1 %cakec library build %S/../library/Inputs/split_unsized_workspace.json -o %t2 2>&1 | %FileCheck %s --check-prefix=UNSIZED
// UNSIZED: error: variant 'unsized': workspace 'W' has dim 'L', and 'L' is neither a shape variable of the library nor a compile-time parameter [E0862]
// A "then" step compiled with other defines than its variant: the workspace W: f32[P, M] would be sized with
// P = 8 and read with P = 4.
// RUN: rm -rf %t3 && %expect-exit 1 %cakec library build %S/../library/Inputs/split_bad_steps.json -o %t3 2>&1 | %FileCheck %s --check-prefix=STEPS
// STEPS: split_bad_steps.json:6:14: error: variant 'split': kernel rowsum_finish disagrees with an earlier kernel: 'W' has dims with P = 4 instead of 8 [E0862]
