#!/usr/bin/env bash
# kda_build_flashkda.sh PEERS_DIR: builds FlashKDA (MoonshotAI, CUTLASS) in place for sm_90a on the GPU machine,
# from PEERS_DIR/FlashKDA (its source at 1ce47ea with its pinned CUTLASS 5c149f52 under cutlass/: include/,
# tools/util/include, examples/common).  Leaves PEERS_DIR/FlashKDA/flash_kda_C*.so beside flash_kda/, so that
# `sys.path.insert(0, PEERS_DIR/FlashKDA); import flash_kda` works (bench/kda_bench.py).  Skips the build when a
# module is already there and imports.  Needs nvcc, torch with CUDA, ninja; no network.
set -eu
peers="$(cd "${1:?usage: kda_build_flashkda.sh PEERS_DIR}" && pwd)"
src="$peers/FlashKDA"
cd "$src"
if ls flash_kda_C*.so >/dev/null 2>&1 && python3 -c "import sys; sys.path.insert(0, '$src'); import flash_kda" 2>/dev/null; then
  echo "FlashKDA: already built ($(ls flash_kda_C*.so))"
  exit 0
fi
start=$(date +%s)
# setup.py runs `git submodule update --init cutlass` (harmless without a git repository: the sources are here)
FLASH_KDA_CUDA_ARCHS=90a MAX_JOBS=${MAX_JOBS:-16} NVCC_THREADS=${NVCC_THREADS:-8} \
  python3 setup.py build_ext --inplace 2>&1 | tail -n 30
ls flash_kda_C*.so
echo "FlashKDA: built in $(( $(date +%s) - start )) s"
