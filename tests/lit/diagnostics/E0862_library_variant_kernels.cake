// E0862: the kernels of a variant that launches several must fit together, and its "workspace" must name
// their tensor parameters: 'split' lists a workspace Z that no kernel declares.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/split_bad_workspace.json -o %t 2>&1 | %FileCheck %s
// CHECK: split_bad_workspace.json:6:14: error: variant 'split': workspace 'Z' is no parameter of the variant's kernels [E0862]
target sm_80;
