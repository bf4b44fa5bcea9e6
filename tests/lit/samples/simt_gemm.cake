// samples/simt_gemm.cake passes the front end (parse + sema) with zero diagnostics: --verify-diagnostics with no
// expectations in the sample fails on any error, warning or note.
// RUN: %cakec --verify-only --verify-diagnostics %samples/simt_gemm.cake
// The canonical IR (--emit=ir) of the sample passes the front end again.
// RUN: %cakec --emit=ir %samples/simt_gemm.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
// Ragged shapes (requires N % 4 == 0, K % 4 == 0 only): in the k loop each f32x4 load of A and of B runs where
// the k-tile is whole on an interior block or the vector lies inside the tensor (`whole || ...`: one or.pred),
// else the vector stays zero; the epilogue's 16 f32x4 stores are masked by row < M and column < N.
// RUN: %cakec --no-verify --emit=ptx %samples/simt_gemm.cake -o - | %FileCheck %s
// CHECK: $L_{{[0-9]+}}_loop:
// CHECK-COUNT-4: mov.b32 {{%f[0-9]+}}, 0f00000000;
// CHECK: or.pred [[PA:%p[0-9]+]], [[WHOLE:%p[0-9]+]], {{%p[0-9]+}};
// CHECK-NEXT: @![[PA]] bra [[ENDA:\$L_[0-9]+_endif]];
// CHECK: ld.global.nc.v4.f32
// CHECK: [[ENDA]]:
// CHECK: or.pred [[PB:%p[0-9]+]], [[WHOLE]], {{%p[0-9]+}};
// CHECK-NEXT: @![[PB]] bra [[ENDB:\$L_[0-9]+_endif]];
// CHECK: ld.global.nc.v4.f32
// CHECK: [[ENDB]]:
// CHECK: bar.sync 0;
// CHECK: $L_{{[0-9]+}}_endloop:
// CHECK: @!%p{{[0-9]+}} bra [[END:\$L_[0-9]+_endif]];
// CHECK-NOT: bra
// CHECK: st.global.v4.f32
// CHECK-NEXT: [[END]]:
// CHECK-COUNT-15: st.global.v4.f32
// CHECK-NOT: st.global
