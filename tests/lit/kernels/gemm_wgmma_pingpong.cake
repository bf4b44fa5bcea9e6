// kernels/gemm/gemm_nt_wgmma_pingpong.cake (the GEMM library's persistent kernels whose two consumer warpgroups
// take turns on whole tiles; the second stores through shared memory and TMA) on the CPU interpreter at ragged
// M, N and K, with grids where a cluster gets an
// odd number of tiles (the second warpgroup's last tile is a phantom: zero-filled boxes past A and B, no
// store) and where it gets several tile pairs, each checked exactly against A . B^T rounded to bf16; a few
// schedules of the warps.  The verifier proves the turns: the consumers join the shared ring mid-sequence
// and the named-barrier hand-off is what makes their parity waits target the right phase.  Mutants are
// caught: without the hand-off a consumer's wait passes on an earlier phase (E0605); with the empty
// barrier's count at one warpgroup of one CTA the producer laps the consumers (E0606); without the named
// barrier after the issuing thread's tma.store.wait, the other threads restage the tile while the previous
// store may still read it (E0658).  ptxas keeps the wgmma instructions asynchronous and spills nothing.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 600 300 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong -D BN=64 -D S=2 --num-sms 6 --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s --check-prefix=ODD
// ODD: ok 600 300
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong -D BN=96 -D S=4 --num-sms 4 --schedules 3 --seed 5 --inputs %t.a.npy,%t.b.npy --outputs %t.c1.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c1.npy | %FileCheck %s --check-prefix=PAIRS
// PAIRS: ok 600 300
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a8.npy %t.b8.npy 600 320 136
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong_tma_store -D BN=64 -D S=2 --num-sms 6 --inputs %t.a8.npy,%t.b8.npy --outputs %t.c8.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a8.npy %t.b8.npy %t.c8.npy | %FileCheck %s --check-prefix=TMA
// RUN: %cakec run %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong_tma_store -D BN=128 -D S=4 --num-sms 4 --schedules 2 --seed 3 --inputs %t.a8.npy,%t.b8.npy --outputs %t.c9.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a8.npy %t.b8.npy %t.c9.npy | %FileCheck %s --check-prefix=TMA
// TMA: ok 600 320
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_pingpong.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong -D BN=64 -D S=8 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong_tma_store -D BN=64 -D S=6 --verify-only 2>&1 | %FileCheck %s --check-prefix=CLEAN
// CLEAN: verified
// RUN: sed -e '/sync turn\[/d' -e '/arrive turn\[/d' %kernels/gemm/gemm_nt_wgmma_pingpong.cake > %t.noturn.cake
// RUN: not %cakec %t.noturn.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=NOTURN
// NOTURN: math[1] then reads 'CTA 0: a[0]' {{.*}} which no completed phase has filled [E0605]
// RUN: sed -e 's/mbarrier empty\[S\] arrivals(8)/mbarrier empty[S] arrivals(4)/' %kernels/gemm/gemm_nt_wgmma_pingpong.cake > %t.count.cake
// RUN: not %cakec %t.count.cake --verify-only 2>&1 | %FileCheck %s --check-prefix=COUNT
// COUNT: empty[0]' completes phase 1 while a waiter still waits for phase 0 [E0606]
// RUN: awk '/sync epi\[math.index\];/ && !d {d=1; next} {print}' %kernels/gemm/gemm_nt_wgmma_pingpong.cake > %t.restage.cake
// RUN: not %cakec %t.restage.cake --kernel gemm_nt_wgmma_pingpong_tma_store --verify-only 2>&1 | %FileCheck %s --check-prefix=RESTAGE
// RESTAGE: 'tma.store' reads shared 'cs' through the async proxy, unordered with the fragment store 'cs[math.index][0, 0]' by another thread [E0658]
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong -v -o %t.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong -D BN=96 -D S=7 -v -o %t.n96.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// RUN: %cakec %kernels/gemm/gemm_nt_wgmma_pingpong.cake --kernel gemm_nt_wgmma_pingpong_tma_store -D S=5 -v -o %t.tma.cubin 2>&1 | %FileCheck %s --check-prefix=PTXAS
// PTXAS: gemm_nt_wgmma_pingpong{{(_tma_store)?}} (sm_90a): {{[0-9]+}} registers, {{.*}} 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: C7518
target sm_90a;
