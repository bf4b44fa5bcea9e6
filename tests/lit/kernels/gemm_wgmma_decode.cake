// kernels/gemm/gemm_nt_wgmma_decode.cake (the GEMM library's decode kernel: B in the wgmma's 64 rows, the few
// token rows of A as its N, the tile stored transposed through shared memory) on the CPU interpreter at decode
// shapes - one row, rows past MT, odd N, a K tail shorter than BK - each checked exactly against A . B^T rounded
// to bf16; then the verifier and ptxas (no spills) for the library's configurations.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 1 100 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=8 -D S=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=ROW
// ROW: ok 1 100
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 20 129 72
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=16 -D S=3 --inputs %t.a1.npy,%t.b1.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=ODD
// ODD: ok 20 129
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=8 -D S=8 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=32 -D S=8 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=8 -D S=8 -v -o %t.8.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=32 -D S=8 -v -o %t.32.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: gemm_nt_wgmma_decode (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90a;
