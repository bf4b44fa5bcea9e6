// kernels/gemm/gemm_nt_wgmma_cluster.cake (the GEMM library's clustered tile kernel: A multicast along a
// cluster row, B along a cluster column) on the CPU interpreter at ragged shapes - M and N not multiples of
// the tile, grids padded to whole clusters (blocks past C's edge), a K tail shorter than BK - for 2 x 1, 1 x 2
// and 2 x 2 clusters, each checked exactly against A . B^T rounded to bf16; then the verifier and ptxas (no
// spills) for the library's configurations.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 130 300 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_cluster.cake -D BN=64 -D S=2 -D CX=2 -D CY=1 --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=ROW
// ROW: ok 130 300
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_cluster.cake -D BM=64 -D BN=64 -D S=3 -D CX=1 -D CY=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c1.npy | %FileCheck %s --check-prefix=COLUMN
// COLUMN: ok 130 300
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_cluster.cake -D BN=64 -D S=2 -D CX=2 -D CY=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c2.npy | %FileCheck %s --check-prefix=SQUARE
// SQUARE: ok 130 300
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_cluster.cake -D S=4 -D CX=2 -D CY=2 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_cluster.cake -D BN=256 -D S=4 -D CX=2 -D CY=1 --verify-only
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_cluster.cake -D S=6 -D CX=2 -D CY=1 -v -o %t.s.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_cluster.cake -D BN=256 -D S=4 -D CX=1 -D CY=2 -v -o %t.l.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: gemm_nt_wgmma_cluster (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
target sm_90a;
