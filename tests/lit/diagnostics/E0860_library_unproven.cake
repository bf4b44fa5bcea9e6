// E0860: a table question Z3 cannot decide in time (non-linear guards, a 1 ms limit) is an error, never a pass,
// located at the guard of the entry the question is about.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/unproven.json -o %t --verify-timeout 1 2>&1 | %FileCheck %s
// CHECK: unproven.json:10:15: error: could not decide whether entry 0 is reachable on sm_80 {{.*}}[E0860]
target sm_80;
