// cakec library build: three variants of one kernel compiled into a folder with a checked dispatch table;
// library.json names each variant's manifest, its guard and the spec location of every entry.
// RUN: rm -rf %t && %cakec library build %S/Inputs/good.json -o %t 2>&1 | %FileCheck %s --check-prefix=LOG
// RUN: %FileCheck %s < %t/library.json
// RUN: ls %t | %FileCheck %s --check-prefix=FILES
// LOG: cakec library: variant v8: {{.*}}rowscale.cake
// LOG: cakec library: rowscale_lib: 3 variants, 3 dispatch entries, table checked -> {{.*}}library.json
// CHECK: "format": "cake-library",
// CHECK: "name": "rowscale_lib",
// CHECK: "shape_vars": [
// CHECK:     "name": "M",
// CHECK-NEXT: "from": {
// CHECK-NEXT:   "param": 0,
// CHECK-NEXT:   "dim": 0
// CHECK: "domain": "M >= 1 && N >= 1",
// CHECK: "name": "v4",
// CHECK-NEXT: "manifest": "v4.cubin.json",
// CHECK-NEXT: "kernel": "rowscale",
// CHECK-NEXT: "arch": "sm_80",
// CHECK: "defines": {
// CHECK-NEXT: "BS": 256,
// CHECK-NEXT: "V": 4
// CHECK: "dispatch": [
// CHECK: "guard": "N % 8 == 0 && M >= 4096",
// CHECK-NEXT: "variant": "v8",
// CHECK-NEXT: "loc": "{{.*}}good.json:11:15"
// CHECK: "fallback": true,
// CHECK-NEXT: "variant": "any",
// FILES: any.cubin
// FILES: any.cubin.json
// FILES: library.json
// FILES: v4.cubin
// FILES: v8.cubin.json
target sm_80;
