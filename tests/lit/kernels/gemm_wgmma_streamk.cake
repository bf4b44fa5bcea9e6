// The stream-K GEMM pair (kernels/gemm/gemm_nt_wgmma_streamk.cake) on the interpreter: G blocks each run an equal
// range of the (tile, k-tile) iterations, storing whole tiles to C and partial segments to W[G, 2], and the
// fix-up adds each split tile's partials into C.  The inputs' products and sums are exact in f32, so C must equal
// bf16(A . B^T) exactly: ragged M and N, a K tail inside the last k-tile, ranges that are whole tiles only
// (G = 3: 144 iterations, 48 per block, 3 tiles of 16), that cross tile boundaries (G = 5, G = 7) and that lie
// inside one tile (G = 20: up to four blocks per tile).
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 130 66 1000
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_wgmma_streamk -D BM=64 -D BN=32 -D G=3 --inputs A=%t.a.npy,B=%t.b.npy --outputs C=%t.c3.npy,W=%t.w3.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c3.npy | %FileCheck %s
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_wgmma_streamk -D BM=64 -D BN=32 -D G=5 --inputs A=%t.a.npy,B=%t.b.npy --outputs C=%t.c5.npy,W=%t.w5.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_streamk_fixup -D BM=64 -D BN=32 -D G=5 -D RT=64 --inputs A=%t.a.npy,C=%t.c5.npy,W=%t.w5.npy --outputs C=%t.f5.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.f5.npy | %FileCheck %s
// Without the fix-up the split tiles are missing (the check above can fail):
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c5.npy | %FileCheck %s --check-prefix=UNFIXED
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_wgmma_streamk -D BM=64 -D BN=32 -D G=20 --inputs A=%t.a.npy,B=%t.b.npy --outputs C=%t.c20.npy,W=%t.w20.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_streamk_fixup -D BM=64 -D BN=32 -D G=20 -D RT=64 --inputs A=%t.a.npy,C=%t.c20.npy,W=%t.w20.npy --outputs C=%t.f20.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.f20.npy | %FileCheck %s
// Two math warpgroups (BM = 128), 128 x 64 tiles, 300 x 260 x 200 over 7 blocks:
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 300 260 200
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_wgmma_streamk -D BM=128 -D BN=64 -D G=7 --inputs A=%t.a2.npy,B=%t.b2.npy --outputs C=%t.c7.npy,W=%t.w7.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_streamk.cake --kernel gemm_nt_streamk_fixup -D BM=128 -D BN=64 -D G=7 -D RT=128 --inputs A=%t.a2.npy,C=%t.c7.npy,W=%t.w7.npy --outputs C=%t.f7.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.f7.npy | %FileCheck %s --check-prefix=LARGE
// The pair verifies with the library's parameters:
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_streamk.cake --verify-only -D BN=256 2>&1 | %FileCheck %s --check-prefix=VERIFY
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_streamk.cake --verify-only -D BN=128 -D S=6 2>&1 | %FileCheck %s --check-prefix=VERIFY
// CHECK: ok 130 66
// UNFIXED: mismatch
// LARGE: ok 300 260
// VERIFY: verified
