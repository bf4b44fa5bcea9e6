// Architecture gating on the samples: SIMT and sm_80 tensor-core kernels compile for every newer target;
// TMA needs sm_90 or newer, setmaxnreg (regs) sm_90a or sm_100a, and wgmma exists only on sm_90a (E0402).
// RUN: %cakec --verify-only --verify-diagnostics --arch sm_90a %samples/ampere_gemm.cake
// RUN: %cakec --verify-only --verify-diagnostics --arch sm_100a %samples/row_softmax.cake
// RUN: %cakec --verify-only --verify-diagnostics --arch sm_90a %samples/tma_copy.cake
// RUN: %expect-exit 1 %cakec --verify-only --arch sm_90 %samples/hopper_gemm.cake 2>&1 | %FileCheck %s --check-prefix=SM90
// RUN: %expect-exit 1 %cakec --verify-only --arch sm_100a %samples/hopper_gemm.cake 2>&1 | %FileCheck %s --check-prefix=SM100
// RUN: %expect-exit 1 %cakec --verify-only --arch sm_80 %samples/tma_copy.cake 2>&1 | %FileCheck %s --check-prefix=SM80
// SM90: error: 'regs' (setmaxnreg) is not available on sm_90: it requires sm_90a or sm_100a [E0402]
// SM90: error: 'wgmma' is not available on sm_90: it requires sm_90a only [E0402]
// SM100-NOT: 'regs' (setmaxnreg) is not available
// SM100: error: 'wgmma' is not available on sm_100a: it requires sm_90a only [E0402]
// SM80: error: 'tma.load' is not available on sm_80: it requires sm_90 or newer [E0402]
// SM80: error: 'tma.store' is not available on sm_80: it requires sm_90 or newer [E0402]
