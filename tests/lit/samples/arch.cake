// Architecture gating on the samples: SIMT and sm_80 tensor-core kernels compile for every newer target;
// TMA needs sm_90 and wgmma exists only on sm_90a (E0402 names the feature and the required target).
// RUN: %cakec --verify-only --verify-diagnostics --arch sm_90a %samples/ampere_gemm.cake
// RUN: %cakec --verify-only --verify-diagnostics --arch sm_100a %samples/row_softmax.cake
// RUN: %cakec --verify-only --verify-diagnostics --arch sm_90a %samples/tma_copy.cake
// RUN: %expect-exit 1 %cakec --verify-only --arch sm_90 %samples/hopper_gemm.cake 2>&1 | %FileCheck %s --check-prefix=WGMMA
// RUN: %expect-exit 1 %cakec --verify-only --arch sm_80 %samples/tma_copy.cake 2>&1 | %FileCheck %s --check-prefix=TMA
// WGMMA: error: {{.*}}wgmma{{.*}}sm_90a{{.*}}[E0402]
// TMA: error: {{.*}}tma.load{{.*}}sm_90{{.*}}[E0402]
