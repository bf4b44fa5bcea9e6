// samples/gemm_bias_act.cake passes the front end with zero diagnostics and its canonical IR round-trips.
// RUN: %cakec --verify-only --verify-diagnostics %samples/gemm_bias_act.cake
// RUN: %cakec --emit=ir %samples/gemm_bias_act.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
// The epilogue works on the accumulator in registers: no shared-memory traffic besides TMA and wgmma.
// RUN: %cakec --no-verify --emit=ptx %samples/gemm_bias_act.cake -o - | %FileCheck %s --check-prefix=NOSHARED
// NOSHARED-NOT: ld.shared
// NOSHARED-NOT: st.shared
// NOSHARED-NOT: stmatrix
// The bias is gathered once per column a thread holds (BN / 4 = 64 masked loads), tanh for gelu:
// RUN: %cakec --no-verify -D ACT=1 --emit=ptx %samples/gemm_bias_act.cake -o - | %FileCheck %s --check-prefix=EPI
// EPI-COUNT-64: @%p{{[0-9]+}} ld.global.nc.f32
// EPI-NOT: ld.global.nc.f32
// EPI: tanh.approx.f32
