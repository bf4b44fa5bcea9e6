// cakec library build: a variant that launches two kernels in order ("kernel", then "then") with a workspace
// tensor the runtime's caller provides ("workspace"); the library's arguments are the kernels' other
// parameters (X, Y), and its shape variables are read from them, never from the workspace.  A "then" step
// given as {"source", "kernel", "defines"} is compiled on its own (its own cubin and manifest).
// RUN: rm -rf %t && %cakec library build %S/Inputs/split.json -o %t 2>&1 | %FileCheck %s --check-prefix=LOG
// RUN: %FileCheck %s < %t/library.json
// LOG: cakec library: variant split_steps, then[0]: {{.*}}rowsum.cake
// LOG: cakec library: rowsum_lib: 3 variants, 3 dispatch entries, table checked -> {{.*}}library.json
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
// CHECK: "name": "split_steps",
// CHECK-NEXT: "manifest": "split_steps.cubin.json",
// CHECK-NEXT: "kernel": "rowsum_partial",
// CHECK-NEXT: "then": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "manifest": "split_steps.then0.cubin.json",
// CHECK-NEXT:     "kernel": "rowsum_finish",
// CHECK-NEXT:     "source": "rowsum.cake",
// CHECK-NEXT:     "defines": {
// CHECK-NEXT:       "P": 16
