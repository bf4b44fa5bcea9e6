// samples/attention_fwd.cake passes the front end with zero diagnostics and its canonical IR round-trips.
// RUN: %cakec --verify-only --verify-diagnostics %samples/attention_fwd.cake
// RUN: %cakec --emit=ir %samples/attention_fwd.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
// The epilogue works on the accumulator in registers: no shared-memory traffic besides TMA and wgmma.
// RUN: %cakec --no-verify --emit=ptx %samples/attention_fwd.cake -o - | %FileCheck %s --check-prefix=NOSHARED
// NOSHARED-NOT: ld.shared
// NOSHARED-NOT: st.shared
// NOSHARED-NOT: stmatrix
// P = ex2(scores - m) converted to bf16 is the register A operand of O += P * V (V MN-major: transpose-b = 1),
// fenced again after the conversion; the online softmax before it reduces rows with quad shuffles:
// RUN: %cakec --no-verify --emit=ptx %samples/attention_fwd.cake -o - | %FileCheck %s --check-prefix=PV
// PV: shfl.sync.bfly.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, 1, 31, -1;
// PV: cvt.rn.bf16x2.f32
// PV: wgmma.fence.sync.aligned;
// PV: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, %p{{[0-9]+}}, 1, 1, 1;
