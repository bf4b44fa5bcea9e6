// cakec library build: a variant that launches two kernels in order ("kernel", then "then") with a workspace
// tensor the runtime's caller provides ("workspace"); the library's arguments are the kernels' other
// parameters (X, Y), and its shape variables are read from them, never from the workspace.
// RUN: rm -rf %t && %cakec library build %S/Inputs/split.json -o %t 2>&1 | %FileCheck %s --check-prefix=LOG
// RUN: %FileCheck %s < %t/library.json
// LOG: cakec library: rowsum_lib: 2 variants, 2 dispatch entries, table checked -> {{.*}}library.json
// CHECK:     "name": "M",
// CHECK-NEXT: "from": {
// CHECK-NEXT:   "param": 0,
// CHECK-NEXT:   "dim": 0
// CHECK:     "name": "N",
// CHECK-NEXT: "from": {
// CHECK-NEXT:   "param": 0,
// CHECK-NEXT:   "dim": 1
// CHECK: "name": "split",
// CHECK-NEXT: "manifest": "split.cubin.json",
// CHECK-NEXT: "kernel": "rowsum_partial",
// CHECK-NEXT: "then": [
// CHECK-NEXT:   "rowsum_finish"
// CHECK-NEXT: ],
// CHECK-NEXT: "workspace": [
// CHECK-NEXT:   "W"
// CHECK-NEXT: ],
target sm_80;
