// The split-K GEMM pair (kernels/gemm/gemm_nt_wgmma_splitk.cake, then gemm_nt_splitk_reduce.cake) on the interpreter: the partial kernel writes
// each K slice's f32 product to W[SPLITS, M, N], the reduce kernel adds the slices into bf16 C.  The inputs'
// products and sums are exact in f32, so C must equal bf16(A . B^T) exactly: ragged M and N, a K tail inside
// the last k-tile, and k-tiles that do not divide evenly among the splits (16 k-tiles over 3 splits: 5, 5, 6).
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 130 66 1000
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_splitk.cake --kernel gemm_nt_wgmma_splitk_partial -D BM=128 -D BN=64 -D SPLITS=3 --inputs A=%t.a.npy,B=%t.b.npy --outputs W=%t.w.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=3 --inputs W=%t.w.npy --outputs C=%t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s
// One split per k-tile (SPLITS = cdiv(K, BK)), 64-row tiles:
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 70 34 256
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_splitk.cake --kernel gemm_nt_wgmma_splitk_partial -D BM=64 -D BN=32 -D SPLITS=4 --inputs A=%t.a1.npy,B=%t.b1.npy --outputs W=%t.w1.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=4 -D RT=32 --inputs W=%t.w1.npy --outputs C=%t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=SMALL
// The pair verifies (the library's parameters):
// A 192-row tile (three math warpgroups) over ragged M = 150:
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 150 34 304
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_splitk.cake --kernel gemm_nt_wgmma_splitk_partial -D BM=192 -D BN=32 -D S=2 -D SPLITS=2 --inputs A=%t.a2.npy,B=%t.b2.npy --outputs W=%t.w2.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=2 -D RT=32 --inputs W=%t.w2.npy --outputs C=%t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.c2.npy | %FileCheck %s --check-prefix=TALL
// TALL: ok 150 34
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_splitk.cake --verify-only -D BM=256 -D SPLITS=2 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_splitk.cake --verify-only -D SPLITS=32 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %kernels/gemm/gemm_nt_splitk_reduce.cake --verify-only -D SPLITS=32 2>&1 | %FileCheck %s --check-prefix=VERIFY
// CHECK: ok 130 66
// SMALL: ok 70 34
// VERIFY: verified
