// The samples' compile-time parameters are real knobs: other tile shapes and pipeline depths (the kind of
// sweep --estimate ranks) still pass the front end with zero diagnostics.
// RUN: %cakec --verify-only --verify-diagnostics -D THREADS=128 %samples/vector_add.cake
// RUN: %cakec --verify-only --verify-diagnostics -D THREADS=512 -D ITEMS=8 %samples/block_reduce_sum.cake
// RUN: %cakec --verify-only --verify-diagnostics -D WARPS=8 %samples/row_softmax.cake
// RUN: %cakec --verify-only --verify-diagnostics -D BK=16 -D TM=4 %samples/simt_gemm.cake
// RUN: %cakec --verify-only --verify-diagnostics -D S=4 -D BK=32 %samples/ampere_gemm.cake
// RUN: %cakec --verify-only --verify-diagnostics -D WM=32 -D BN=64 -D WN=32 %samples/ampere_gemm.cake
// RUN: %cakec --verify-only --verify-diagnostics -D BN=128 -D S=6 %samples/hopper_gemm.cake
