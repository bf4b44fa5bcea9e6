// cakec library estimate: every variant of a spec priced by the cost model at each --shape, fastest first; a
// variant of two kernels is priced as both launches (the steps' times add up, and the second kernel, which has
// no N, is priced at the library's shape); a variant whose `requires` is false at the shape is refused with
// the requirement; the dispatch table's choice is named with its predicted rank.
// RUN: %cakec library estimate %S/Inputs/split.json --shape M=1000,N=8192 --shape N=100000,M=4096 | %FileCheck %s
// CHECK: rowsum_lib at M=1000,N=8192: table -> split, predicted rank 2 of 3
// CHECK-NEXT: 1  split_steps {{.*}} ms  {{[a-z0-9]+}}  (rowsum_partial [[P16:[0-9.]+]] + rowsum_finish [[F16:[0-9.]+]])
// CHECK-NEXT: 2  split {{.*}} ms  {{[a-z0-9]+}}  (rowsum_partial {{[0-9.]+}} + rowsum_finish {{[0-9.]+}})
// CHECK-NEXT: 3  one {{.*}} ms
// CHECK: rowsum_lib at M=4096,N=100000: table -> split_steps, predicted rank 1 of 3
//
// RUN: %cakec library estimate %S/Inputs/good.json --shape M=4096,N=1002 | %FileCheck %s --check-prefix=REFUSED
// REFUSED: rowscale_lib at M=4096,N=1002: table -> any, predicted rank 1 of 1
// REFUSED-NEXT: 1  any
// REFUSED-NEXT: -  v8 {{ *}}refused: line 6: the shape M=4096,N=1002 violates this requirement of kernel 'rowscale' [E0803]
// REFUSED-NEXT: -  v4 {{ *}}refused: line 6: {{.*}} [E0803]
//
// A variant compiled with "compile" is priced as built: V = 8 suits only `rowscale`, the file's other kernel is
// left out (with it, sema refuses V = 8 for `halve`).
// RUN: %cakec library estimate %S/Inputs/compile.json --shape M=100,N=64 | %FileCheck %s --check-prefix=COMPILE
// COMPILE: rowscale_lib at M=100,N=64: table -> v8, predicted rank {{[12]}} of 2
//
// The JSON document: a step's time is part of its variant's, the table's choice is given per shape.
// RUN: %cakec library estimate %S/Inputs/split.json --shape M=1000,N=8192 --json > %t.json
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); s = d['shapes'][0]; v = {x['variant']: x for x in s['variants']}; assert d['format'] == 'cake-library-estimate' and s['table'] == 'split' and s['shape'] == {'M': 1000, 'N': 8192}; st = v['split']['steps']; assert [x['kernel'] for x in st] == ['rowsum_partial', 'rowsum_finish'] and abs(sum(x['predicted_ms'] for x in st) - v['split']['predicted_ms']) < 1e-9; print('ok')" %t.json | %FileCheck %s --check-prefix=JSON
// JSON: ok
//
// Errors: a malformed shape is a usage error (2), a named machine that does not exist E0805 (1), a spec that
// cannot be read E0501 (3).
// RUN: %expect-exit 2 %cakec library estimate %S/Inputs/good.json --shape M=4096,N=x 2>&1 | %FileCheck %s --check-prefix=USAGE
// USAGE: malformed --shape 'M=4096,N=x'
// RUN: %expect-exit 1 %cakec library estimate %S/Inputs/good.json --shape M=1,N=1 --machine no_such_machine 2>&1 | %FileCheck %s --check-prefix=MACHINE
// MACHINE: cannot use machine description 'no_such_machine'{{.*}}[E0805]
// RUN: %expect-exit 3 %cakec library estimate %t.missing.json --shape M=1 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: cannot read {{.*}}[E0501]
target sm_80;
