// kernels/gemm/gemm_nt_wgmma_tile.cake (the GEMM library's decode / small / K-light kernel) on the CPU
// interpreter at ragged shapes - M and N not multiples of the tile, a K tail shorter than BK, one decode row -
// for the tile shapes the library uses (64 to 256 rows: three and four math warpgroups for the mid-M tiles), each checked exactly against A . B^T rounded to bf16; then the
// verifier and ptxas (no spills) for each library configuration.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 70 46 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=64 -D BN=32 -D S=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=SKINNY
// SKINNY: ok 70 46
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 1 96 200
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=64 -D BN=64 -D S=6 --inputs %t.a1.npy,%t.b1.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=DECODE
// DECODE: ok 1 96
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 130 66 72
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=128 -D BN=64 -D S=3 --inputs %t.a2.npy,%t.b2.npy --outputs %t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.c2.npy | %FileCheck %s --check-prefix=SMALL
// SMALL: ok 130 66
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a3.npy %t.b3.npy 168 80 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=192 -D BN=64 -D S=3 --inputs %t.a3.npy,%t.b3.npy --outputs %t.c3.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a3.npy %t.b3.npy %t.c3.npy | %FileCheck %s --check-prefix=MIDM
// MIDM: ok 168 80
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a4.npy %t.b4.npy 300 34 72
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=256 -D BN=32 -D S=2 --inputs %t.a4.npy,%t.b4.npy --outputs %t.c4.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a4.npy %t.b4.npy %t.c4.npy | %FileCheck %s --check-prefix=TALL
// TALL: ok 300 34
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=64 -D BN=32 -D S=8 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=128 -D BN=256 -D S=2 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=256 -D BN=128 -D S=4 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=256 -D BN=128 -D S=4 -v -o %t.t.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=64 -D BN=32 -D S=8 -v -o %t.s.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_tile.cake -D BM=128 -D BN=256 -D S=2 -v -o %t.l.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: gemm_nt_wgmma_tile (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90a;
