// samples/ampere_gemm.cake passes the front end (parse + sema) with zero diagnostics: --verify-diagnostics with no
// expectations in the sample fails on any error, warning or note.
// RUN: %cakec --verify-only --verify-diagnostics %samples/ampere_gemm.cake
// The canonical IR (--emit=ir) of the sample passes the front end again.
// RUN: %cakec --emit=ir %samples/ampere_gemm.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
// Ragged shapes (requires N % 8 == 0, K % 8 == 0 only): the prologue's S - 1 = 2 tiles of 4 + 8 copies
// zero-fill outside [M, K] / [K, N] (a source size register); in the main loop an interior block refilling a
// whole k-tile takes the 12 plain copies (the fast path: no masks), the edge tiles the 12 zero-fill copies;
// the epilogue's 16-byte stores are masked by row < M and column < N.
// RUN: %cakec --no-verify --emit=ptx %samples/ampere_gemm.cake -o - | %FileCheck %s
// CHECK-COUNT-24: cp.async.cg.shared.global [{{%r[0-9]+[+0-9]*}}], [{{%rd[0-9]+}}], 16, {{%r[0-9]+}};
// CHECK: bra $L_{{[0-9]+}}_else;
// CHECK-COUNT-12: cp.async.cg.shared.global [{{%r[0-9]+[+0-9]*}}], [{{%rd[0-9]+[+0-9]*}}], 16;
// CHECK: $L_{{[0-9]+}}_else:
// CHECK-COUNT-12: cp.async.cg.shared.global [{{%r[0-9]+[+0-9]*}}], [{{%rd[0-9]+}}], 16, {{%r[0-9]+}};
// CHECK: cp.async.wait_group 0;
// CHECK: @!%p{{[0-9]+}} bra [[END:\$L_[0-9]+_endif]];
// CHECK-NOT: bra
// CHECK: st.global.v4.b32
// CHECK-NEXT: [[END]]:
// CHECK-COUNT-15: st.global.v4.b32
// CHECK-NOT: st.global
