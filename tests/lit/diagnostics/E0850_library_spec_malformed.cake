// E0850: a malformed library spec - every problem is reported, each at its place in the spec.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/malformed.json -o %t 2>&1 | %FileCheck %s
// CHECK: malformed.json:4:3: error: library spec: unknown key 'domian' [E0850]
// CHECK: malformed.json:5:21: error: library spec: "table_check_ms" is the solver's milliseconds per table query, 1000..600000 [E0850]
// CHECK: malformed.json:7:14: error: library spec: define 'V' of 'any' is an integer or a type name [E0850]
// CHECK: malformed.json:8:14: error: library spec: step 0 of 'two' needs a "source" (.cake file) and a "kernel" [E0850]
target sm_80;
