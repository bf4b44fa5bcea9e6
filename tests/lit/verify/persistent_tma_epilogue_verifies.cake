// samples/hopper_gemm_tma_epilogue.cake (a persistent GEMM, S = 3) verifies clean, in its default
// configuration and with BN = 128, S = 5: the period is the smallest one proven (2S = 6 / 10, not 12 / 20), and
// all tile counts of one k-tile count are simulated together, so the enumeration stays under the cap (it
// stopped at E0601 "466 / 1202 combinations, at most 400" before).  Dropping its final cluster.sync is E0613.
// RUN: %cakec --verify-only %samples/hopper_gemm_tma_epilogue.cake 2>&1 | %FileCheck %s
// RUN: %cakec --verify-only -D BN=128 -D S=5 %samples/hopper_gemm_tma_epilogue.cake 2>&1 | %FileCheck %s
// CHECK-NOT: error
// CHECK: verified: {{[0-9]+}} obligations proven
// RUN: awk '{ line[NR] = $0 } END { for (i = 1; i <= NR; i++) if (!(i == NR - 1 && line[i] == "  cluster.sync;")) print line[i] }' %samples/hopper_gemm_tma_epilogue.cake > %t.cake
// RUN: not %cakec --verify-only %t.cake 2>&1 | %FileCheck --check-prefix=EXIT %s
// EXIT: error: CTA {{[01]}}: math[{{[01]}}] {{.*}} arrives on 'CTA {{[01]}}: empty[{{[0-9]}}]' after CTA {{[01]}} may have exited [E0613]
