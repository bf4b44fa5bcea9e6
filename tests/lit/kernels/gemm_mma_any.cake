// kernels/gemm/gemm_nt_mma_any.cake (the GEMM library's tensor-core path for any M, N, K) on the CPU
// interpreter at shapes TMA cannot serve - odd K (A's and B's rows 2-byte aligned), odd N, a single row,
// a 7 x 7 x 7 problem inside one tile - each checked exactly against A . B^T rounded to bf16; then the
// verifier and ptxas (no spills).
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 133 135 77
// RUN: %cakec run %kernels/gemm/gemm_nt_mma_any.cake --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=ODD
// ODD: ok 133 135
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 1 255 64
// RUN: %cakec run %kernels/gemm/gemm_nt_mma_any.cake --inputs %t.a1.npy,%t.b1.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=ROW
// ROW: ok 1 255
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 7 7 7
// RUN: %cakec run %kernels/gemm/gemm_nt_mma_any.cake --inputs %t.a2.npy,%t.b2.npy --outputs %t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.c2.npy | %FileCheck %s --check-prefix=TINY
// TINY: ok 7 7
// RUN: %cakec run %kernels/gemm/gemm_nt_mma_any.cake -D BM=64 -D BN=128 -D WM=32 -D WN=32 --inputs %t.a.npy,%t.b.npy --outputs %t.c3.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c3.npy | %FileCheck %s --check-prefix=ODD
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a4.npy %t.b4.npy 133 300 77
// RUN: %cakec run %kernels/gemm/gemm_nt_mma_any.cake -D BM=128 -D BN=256 -D WM=64 -D WN=64 --inputs %t.a4.npy,%t.b4.npy --outputs %t.c4.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a4.npy %t.b4.npy %t.c4.npy | %FileCheck %s --check-prefix=WIDE
// WIDE: ok 133 300
// RUN: %cakec %kernels/gemm/gemm_nt_mma_any.cake --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_mma_any.cake -D BM=64 -D BN=128 -D WM=32 -D WN=32 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_mma_any.cake -D BM=128 -D BN=256 -D WM=64 -D WN=64 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_mma_any.cake -D BM=64 -D BN=128 -D WM=32 -D WN=32 -v -o %t.s.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_mma_any.cake -D BM=128 -D BN=256 -D WM=64 -D WN=64 -v -o %t.l.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_mma_any.cake -v -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: gemm_nt_mma_any (sm_90): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90;
