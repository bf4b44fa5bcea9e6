// E0504: stages that are not built yet (cost model, PTX/cubin code generation) say so plainly, exit 1,
// and write nothing.  Input errors are still reported first.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %expect-exit 1 %cakec %s --estimate --shape M=4096,N=4096 2>&1 | %FileCheck %s --check-prefix=ESTIMATE
// ESTIMATE: cakec: error: --estimate is not available yet: the cost model (src/cost) has not been built; no estimate was produced [E0504]
// RUN: %expect-exit 1 %cakec %s --emit=ptx -o %t.dir/k.ptx 2>&1 | %FileCheck %s --check-prefix=PTX
// PTX: cakec: error: --emit=ptx is not available yet: code generation {{.*}}nothing was written [E0504]
// RUN: %expect-exit 1 %cakec %s -o %t.dir/k.cubin 2>&1 | %FileCheck %s --check-prefix=CUBIN
// CUBIN: cakec: error: cubin output ('-o {{.*}}k.cubin') is not available yet
// RUN: %expect-exit 1 %cakec %s 2>&1 | %FileCheck %s --check-prefix=DEFAULT
// DEFAULT: cakec: error: cubin output (the default) is not available yet
// DEFAULT-NEXT: hint: --verify-only checks the input; --emit=ir prints its canonical form
// RUN: ls %t.dir | count 0
// RUN: %expect-exit 1 %cakec %S/../driver/Inputs/syntax_error.cake --estimate 2>&1 | %FileCheck %s --check-prefix=INPUT
// INPUT: error: expected
// INPUT-NOT: E0504
target sm_80;
