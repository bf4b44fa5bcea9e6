// kernels/gemm/gemm_nt_wgmma_anyn.cake (the GEMM library's wgmma path for odd N with K % 8 == 0) on the CPU
// interpreter at odd N - ragged M, a K tail shorter than BK, one decode row - for the tile shapes the library
// uses, each checked exactly against A . B^T rounded to bf16; then the verifier and ptxas (no spills).
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 70 47 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=64 -D BN=32 -D S=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=SKINNY
// SKINNY: ok 70 47
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 1 33 64
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=64 -D BN=64 -D S=4 --inputs %t.a1.npy,%t.b1.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=DECODE
// DECODE: ok 1 33
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 130 255 72
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=128 -D BN=128 -D S=2 --inputs %t.a2.npy,%t.b2.npy --outputs %t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.c2.npy | %FileCheck %s --check-prefix=WIDE
// WIDE: ok 130 255
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=64 -D BN=32 -D S=8 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=128 -D BN=128 -D S=2 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=64 -D BN=32 -D S=8 -v -o %t.s.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyn.cake -D BM=128 -D BN=128 -D S=2 -v -o %t.l.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: gemm_nt_wgmma_anyn (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90a;
