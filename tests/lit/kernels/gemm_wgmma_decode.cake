// kernels/gemm/gemm_nt_wgmma_decode.cake (the GEMM library's decode kernel: B in the wgmma's 64 rows, the few
// token rows of A as its N, the tile stored transposed through shared memory) on the CPU interpreter at decode
// shapes - one row, rows past MT, odd N, a K tail shorter than BK - each checked exactly against A . B^T rounded
// to bf16; then the verifier and ptxas (no spills) for the library's configurations.  The split-K form
// (gemm_nt_wgmma_decode_splitk_partial, then kernels/gemm/gemm_nt_splitk_reduce.cake) too: 9 k-tiles over 4
// splits (2, 2, 2, 3), rows past MT, a K tail.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 1 100 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_decode.cake --kernel gemm_nt_wgmma_decode -D MT=8 -D S=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=ROW
// ROW: ok 1 100
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 20 129 72
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_decode.cake --kernel gemm_nt_wgmma_decode -D MT=16 -D S=3 --inputs %t.a1.npy,%t.b1.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=ODD
// ODD: ok 20 129
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=8 -D S=8 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=32 -D S=8 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=8 -D S=8 -v -o %t.8.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake -D MT=32 -D S=8 -v -o %t.32.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 20 130 520
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_decode.cake --kernel gemm_nt_wgmma_decode_splitk_partial -D MT=16 -D S=3 -D SPLITS=4 --inputs A=%t.a2.npy,B=%t.b2.npy --outputs W=%t.w2.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=4 -D RT=32 --inputs W=%t.w2.npy --outputs C=%t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.c2.npy | %FileCheck %s --check-prefix=SPLITK
// SPLITK: ok 20 130
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_decode.cake --kernel gemm_nt_wgmma_decode_splitk_partial -D MT=8 -D S=16 -D SPLITS=8 -v -o %t.sk.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS-SK
// PTXAS-SK: gemm_nt_wgmma_decode_splitk_partial (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: gemm_nt_wgmma_decode (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90a;
