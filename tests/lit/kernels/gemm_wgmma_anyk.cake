// kernels/gemm/gemm_nt_wgmma_anyk.cake (the GEMM library's wgmma path for any K: producers load through
// registers and fill the swizzled ring with plain stores) on the CPU interpreter at odd K, odd N and ragged
// M - each checked exactly against A . B^T rounded to bf16 - for the library's tile shapes; the verifier
// proves the hand-off (stores, fence.proxy_async, arrive full / wait full, wgmma), and a mutant of each part
// of it is caught: no wait before the wgmma, the arrive before the stores, no fence, the stage released
// before the wgmma that reads it retired.  Its split-K form (gemm_nt_wgmma_anyk_splitk_partial, then
// kernels/gemm/gemm_nt_splitk_reduce.cake) is exact too, with k-tiles that do not divide evenly among the
// splits (11 k-tiles over 3: 3, 4, 4) and a K tail inside the last one.  Its decode form
// (gemm_nt_wgmma_anyk_decode_partial: swapped operands, BM token rows) is exact at odd M, N and K with the
// reduce's single-element path (V = 1: odd N), 8 and 16 token rows; `cakec run --kernel` checks only the kernel
// it runs, so -D BM=8 (which the file's 64-row kernels refuse) is accepted for it.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 130 75 139
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=P2
// P2: ok 130 75
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a1.npy %t.b1.npy 7 200 67
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D BM=64 -D BN=64 -D P=1 -D S=2 --inputs %t.a1.npy,%t.b1.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a1.npy %t.b1.npy %t.c1.npy | %FileCheck %s --check-prefix=P1
// P1: ok 7 200
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D BM=64 -D BN=128 -D P=1 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// CLEAN: verified
// RUN: sed -e '/wait full\[s\] parity/d' %kernels/gemm/gemm_nt_wgmma_anyk.cake > %t.nowait.cake
// RUN: not %cakec %t.nowait.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=NOWAIT
// NOWAIT: reads 'a[0]' before anything has been written to it [E0610]
// RUN: sed -e '/^    arrive full\[s\];/d' -e 's/^\(    wait empty\[s\] parity.*\)$/\1 arrive full[s];/' %kernels/gemm/gemm_nt_wgmma_anyk.cake > %t.early.cake
// RUN: not %cakec %t.early.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=EARLY
// EARLY: reads 'a[0]' before it has observed the write that fills it [E0610]
// RUN: sed -e '/^    fence.proxy_async;/d' %kernels/gemm/gemm_nt_wgmma_anyk.cake > %t.nofence.cake
// RUN: not %cakec %t.nofence.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=NOFENCE
// NOFENCE: error: 'wgmma' reads shared array 'a' through the async proxy after generic-proxy writes without fence.proxy_async [E0646]
// RUN: sed -e '/wgmma.wait 1; .*refilled/d' %kernels/gemm/gemm_nt_wgmma_anyk.cake > %t.release.cake
// RUN: not %cakec %t.release.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=RELEASE
// RELEASE: overwrites 'a[0]' while math[0] may still read it [E0609]
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake -D BM=64 -D BN=64 -D P=1 -v -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a2.npy %t.b2.npy 70 98 701
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_splitk_partial -D SPLITS=3 --inputs A=%t.a2.npy,B=%t.b2.npy --outputs W=%t.w2.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=3 -D RT=32 --inputs W=%t.w2.npy --outputs C=%t.c2.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a2.npy %t.b2.npy %t.c2.npy | %FileCheck %s --check-prefix=SPLITK
// SPLITK: ok 70 98
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_splitk_partial -D SPLITS=16 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// PTXAS: gemm_nt_wgmma_anyk (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes spill stores, 0 bytes spill loads
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a3.npy %t.b3.npy 7 201 1027
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=8 -D SPLITS=3 --inputs A=%t.a3.npy,B=%t.b3.npy --outputs W=%t.w3.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=3 -D RT=32 -D V=1 --inputs W=%t.w3.npy --outputs C=%t.c3.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a3.npy %t.b3.npy %t.c3.npy | %FileCheck %s --check-prefix=DECODE
// DECODE: ok 7 201
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a4.npy %t.b4.npy 19 130 700
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=16 -D SPLITS=2 -D S=2 --inputs A=%t.a4.npy,B=%t.b4.npy --outputs W=%t.w4.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=2 -D RT=32 --inputs W=%t.w4.npy --outputs C=%t.c4.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a4.npy %t.b4.npy %t.c4.npy | %FileCheck %s --check-prefix=DECODE16
// DECODE16: ok 19 130
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=16 -D SPLITS=16 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_splitk_reduce.cake -D V=1 -D SPLITS=16 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=32 -D SPLITS=8 -v -o %t.dec.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS-DEC
// PTXAS-DEC: gemm_nt_wgmma_anyk_decode_partial (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes spill stores, 0 bytes spill loads
// With VW = 2 (K even: each producer lane loads 4-byte pairs) and VW = 4 (K % 4 == 0: 8-byte quads, two rows per
// warp) the three kernels are exact at K = 2 and 4 mod 8 with the K tail inside the last k-tile, and the vector
// loads under `if VW ...` are no alignment error at VW = 1 (the branch is dead there); a K the width does not
// divide is refused.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a5.npy %t.b5.npy 130 75 138
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D VW=2 --inputs %t.a5.npy,%t.b5.npy --outputs %t.c5.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a5.npy %t.b5.npy %t.c5.npy | %FileCheck %s --check-prefix=PAIRS
// PAIRS: ok 130 75
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a6.npy %t.b6.npy 70 98 706
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_splitk_partial -D SPLITS=3 -D VW=2 --inputs A=%t.a6.npy,B=%t.b6.npy --outputs W=%t.w6.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=3 -D RT=32 --inputs W=%t.w6.npy --outputs C=%t.c6.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a6.npy %t.b6.npy %t.c6.npy | %FileCheck %s --check-prefix=PAIRS-SPLITK
// PAIRS-SPLITK: ok 70 98
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a7.npy %t.b7.npy 19 131 700
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=32 -D SPLITS=2 -D VW=2 --inputs A=%t.a7.npy,B=%t.b7.npy --outputs W=%t.w7.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=2 -D RT=32 -D V=1 --inputs W=%t.w7.npy --outputs C=%t.c7.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a7.npy %t.b7.npy %t.c7.npy | %FileCheck %s --check-prefix=PAIRS-DECODE
// PAIRS-DECODE: ok 19 131
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a9.npy %t.b9.npy 131 77 140
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D VW=4 --inputs %t.a9.npy,%t.b9.npy --outputs %t.c9.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a9.npy %t.b9.npy %t.c9.npy | %FileCheck %s --check-prefix=QUADS
// QUADS: ok 131 77
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a10.npy %t.b10.npy 70 98 708
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_splitk_partial -D SPLITS=3 -D VW=4 --inputs A=%t.a10.npy,B=%t.b10.npy --outputs W=%t.w10.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=3 -D RT=32 --inputs W=%t.w10.npy --outputs C=%t.c10.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a10.npy %t.b10.npy %t.c10.npy | %FileCheck %s --check-prefix=QUADS-SPLITK
// QUADS-SPLITK: ok 70 98
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a11.npy %t.b11.npy 7 131 700
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=8 -D SPLITS=2 -D VW=4 --inputs A=%t.a11.npy,B=%t.b11.npy --outputs W=%t.w11.npy
// RUN: %cakec run %kernels/gemm/gemm_nt_splitk_reduce.cake --kernel gemm_nt_splitk_reduce -D SPLITS=2 -D RT=32 -D V=1 --inputs W=%t.w11.npy --outputs C=%t.c11.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a11.npy %t.b11.npy %t.c11.npy | %FileCheck %s --check-prefix=QUADS-DECODE
// QUADS-DECODE: ok 7 131
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake -D VW=4 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D VW=4 -v -o %t.quads.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk_decode_partial -D BM=32 -D SPLITS=8 -D VW=4 -v -o %t.dec4.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS-DEC
// RUN: %expect-exit 1 %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D VW=4 --inputs %t.a5.npy,%t.b5.npy --outputs %t.c12.npy 2>&1 | %FileCheck %s --check-prefix=KMOD4
// KMOD4: the arguments violate 'requires(VW == 1 || (VW == 2 || VW == 4) && K % VW == 0)' [E0906]
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake -D VW=2 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D VW=2 -v -o %t.pairs.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %expect-exit 1 %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel gemm_nt_wgmma_anyk -D VW=2 --inputs %t.a.npy,%t.b.npy --outputs %t.c8.npy 2>&1 | %FileCheck %s --check-prefix=ODDK
// ODDK: the arguments violate 'requires(VW == 1 || (VW == 2 || VW == 4) && K % VW == 0)' [E0906]
// RUN: %expect-exit 2 %cakec run %kernels/gemm/gemm_nt_wgmma_anyk.cake --kernel no_such_kernel --inputs A=%t.a4.npy 2>&1 | %FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL: no kernel 'no_such_kernel' (the file has: gemm_nt_wgmma_anyk, gemm_nt_wgmma_anyk_splitk_partial, gemm_nt_wgmma_anyk_decode_partial)
target sm_90a;
