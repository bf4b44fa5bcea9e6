#!/usr/bin/env bash
# bench/library_gemm_stage.sh: on the development machine (no GPU), builds the bf16 GEMM library
# (kernels/gemm/library_bf16_sm90.json, every candidate variant + the dispatch table, `cakec library build`) and
# stages what bench/library_gemm_device.sh needs on the GPU machine into bench/out/libbench/:
#   bench/out/libbench/libcake_runtime.so           the runtime the Python package loads (CAKE_RUNTIME_LIB)
#   bench/out/libbench/_prepared_call.abi3.so       the native prepared-launch path, when the build has it
#   bench/out/libbench/libraries/gemm_bf16_sm90/    library.json + one cubin and manifest per variant
# Carry ["bench/out/libbench"] to the device.
# Usage: bash bench/library_gemm_stage.sh   Env: CAKEC (default build/cakec), RUNTIME_LIB_DIR (default build/lib).
set -eu -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cakec=${CAKEC:-$repo/build/cakec}
libdir=${RUNTIME_LIB_DIR:-$repo/build/lib}
out=$repo/bench/out/libbench
rm -rf "$out"
mkdir -p "$out/libraries"
"$cakec" library build "$repo/kernels/gemm/library_bf16_sm90.json" -o "$out/libraries/gemm_bf16_sm90"
cp "$libdir/libcake_runtime.so" "$out/"
if [ -f "$libdir/_prepared_call.abi3.so" ]; then cp "$libdir/_prepared_call.abi3.so" "$out/"; fi
du -sh "$out"
