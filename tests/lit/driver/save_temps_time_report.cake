// --save-temps writes the PTX given to ptxas beside the cubin (OUT.ptx, the same text as --emit=ptx);
// --time-report prints each stage's wall time on stderr, in pipeline order; -O picks ptxas's level (0..3).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %cakec %s -o %t.dir/k.cubin --save-temps --time-report -O2 2>&1 | %FileCheck %s --check-prefix=TIMES
// TIMES: cakec: time report: read {{[0-9.]+}} ms, parse {{[0-9.]+}} ms, inline {{[0-9.]+}} ms, sema {{[0-9.]+}} ms, verify {{[0-9.]+}} ms, codegen {{[0-9.]+}} ms, ptxas {{[0-9.]+}} ms, write {{[0-9.]+}} ms, total {{[0-9.]+}} ms
// RUN: test -f %t.dir/k.cubin && test -f %t.dir/k.cubin.json
// RUN: %cakec %s --emit=ptx -o %t.dir/direct.ptx
// RUN: cmp %t.dir/k.ptx %t.dir/direct.ptx
// RUN: %cakec %s -o %t.dir/plain.cubin
// RUN: test ! -e %t.dir/plain.ptx
// RUN: %expect-exit 2 %cakec %s -O7 -o %t.dir/o7.cubin 2>&1 | %FileCheck %s --check-prefix=OPT
// OPT: -O: Value 7 not in range 0 to 3
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
