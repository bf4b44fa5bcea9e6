// cakec run: the SIMT samples on the CPU interpreter, inputs and outputs as .npy files, checked against a
// reference computed by Inputs/npy_tool.py (no numpy needed).  Ragged N (not a multiple of the vector or
// block size) and several blocks.
// RUN: %python %S/Inputs/npy_tool.py ramp %t.a.npy f4 2053 1
// RUN: %python %S/Inputs/npy_tool.py ramp %t.b.npy f4 2053 2
// RUN: %cakec run %samples/vector_add.cake --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy 2>&1 | %FileCheck %s --check-prefix=STATS
// RUN: %python %S/Inputs/npy_tool.py add %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=ADD
// RUN: %cakec run %samples/vector_add.cake -D THREADS=32 --inputs B=%t.b.npy,A=%t.a.npy --outputs C=%t.c2.npy
// RUN: %python %S/Inputs/npy_tool.py add %t.a.npy %t.b.npy %t.c2.npy | %FileCheck %s --check-prefix=ADD
// STATS: cakec run: vector_add: {{[0-9]+}} warp statements
// ADD: ok 2053
//
// block_reduce_sum: N = 5000 is one full chunk of 4096 and a ragged one; the sums are exact here (multiples
// of 1/16 well inside f32), so the output is checked digit for digit.
// RUN: %python %S/Inputs/npy_tool.py ramp %t.x.npy f4 5000 3
// RUN: %cakec run %samples/block_reduce_sum.cake --inputs %t.x.npy --outputs %t.p.npy --shape G=2 --seed 5
// RUN: %python %S/Inputs/npy_tool.py print %t.p.npy | %FileCheck %s --check-prefix=SUM
// SUM: f4 (2,)
// SUM-NEXT: 512.625
// SUM-NEXT: 114.5625
//
// A requires() the arguments violate: G must be cdiv(N, 4096).
// RUN: %expect-exit 1 %cakec run %samples/block_reduce_sum.cake --inputs %t.x.npy --shape G=3 2>&1 | %FileCheck %s --check-prefix=REQ
// REQ: error: the arguments violate 'requires(G == cdiv(N, THREADS * ITEMS * 4))' [E0906]
//
// Command-line misuse and unreadable inputs (the run-time diagnostics: tests/lit/diagnostics/E090*).
// RUN: %expect-exit 2 %cakec run %samples/row_softmax.cake 2>&1 | %FileCheck %s --check-prefix=KERNEL
// KERNEL: the file has several kernels (row_softmax, row_softmax_f16): choose one with --kernel [E0506]
// RUN: %expect-exit 3 %cakec run %samples/vector_add.cake --inputs %t.missing.npy 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: cannot read '{{.*}}missing.npy': {{.*}} [E0501]
target sm_80;

kernel unused(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
