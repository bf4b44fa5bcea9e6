// E0853: a guard that does not parse, and one that names something other than the library's shape variables.
// RUN: rm -rf %t && %expect-exit 1 %cakec library build %S/../library/Inputs/bad_guard.json -o %t 2>&1 | %FileCheck %s
// CHECK: bad_guard.json:9:15: error: guard is not a valid expression: in expression `N % 4 == 0 &&`: {{.*}} [E0853]
target sm_80;
