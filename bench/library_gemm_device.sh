#!/usr/bin/env bash
# bench/library_gemm_device.sh: on the GPU machine, the bf16 GEMM library against torch.matmul over every shape
# of bench/library_bench.py, with every variant timed and checked (--all-variants: times.json, the input of
# `python -m cakeir.generalize kernels/gemm/candidates_bf16_sm90.json --times times.json`).
# Needs bench/out/libbench from bench/library_gemm_stage.sh (carried from the development machine).
# Usage: bash bench/library_gemm_device.sh OUTDIR   Env: BUDGET_S (default 380: no new shape starts after it).
# Writes OUTDIR/library_bench.json, OUTDIR/times.json (rewritten after every shape), OUTDIR/smi.txt, OUTDIR/log.txt.
set -eu -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: library_gemm_device.sh OUTDIR}
stage=$repo/bench/out/libbench
mkdir -p "$out"
nvidia-smi > "$out/smi.txt" 2>&1 || true
export CAKE_RUNTIME_LIB=$stage/libcake_runtime.so
cd "$repo"
python3 bench/library_bench.py --library "$stage/libraries/gemm_bf16_sm90" --out "$out" --all-variants \
    --budget-s "${BUDGET_S:-380}" 2>&1 | tee "$out/log.txt"
