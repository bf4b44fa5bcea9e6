#!/usr/bin/env bash
# bench/fragment_samples_build.sh: compiles the fragment-epilogue samples and their -D variants for the H200 benches
# (bench/attention_bench.py, bench/gemm_bias_act_bench.py, bench/kmeans_assign_bench.py), on the development
# machine (no GPU):
#
#   bench/out/fragments/<variant>.cubin + .cubin.json, variants.json, libcake_runtime.so (bench/build_variants.sh)
#
#   hopper_gemm_persistent            the plain persistent GEMM (the baseline of gemm_bias_act)
#   gemm_bias_act_{relu,gelu,silu}    samples/gemm_bias_act.cake with -D ACT=0 / 1 / 2
#   attention_fwd_d{64,128}[_causal]  samples/attention_fwd.cake with -D CAUSAL=0/1 and -D HD=64/128 (HD only
#                                     when the sample declares it; else attention_fwd[_causal])
#   attention_fwd_d{64,128}[_causal]_simple     the same with -D PINGPONG=0 (no turns on the tensor cores)
#   kmeans_assign_d{64,128}           samples/kmeans_assign.cake with -D HD=64/128 (HD only when declared)
#   kmeans_assign_split_d{64,128}     the same with -D SPLIT=1 (both consumers on 64 rows, merged across them)
#
# Usage: bash bench/fragment_samples_build.sh [--list]
# Env: as bench/build_variants.sh (BUILD_DIR, CAKEC, RUNTIME_LIB).
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

declares() {   # declares SAMPLE_FILE NAME: the kernel header has a compile-time parameter NAME = ...
  grep -qE "[<,][[:space:]]*$2[[:space:]]*=" "$1"
}
source_of() {  # the sample's file
  echo "$repo/samples/$1.cake"
}

# name | sample | defines
variants() {
  echo "hopper_gemm_persistent|hopper_gemm_persistent|"
  echo "gemm_bias_act_relu|gemm_bias_act|ACT=0"
  echo "gemm_bias_act_gelu|gemm_bias_act|ACT=1"
  echo "gemm_bias_act_silu|gemm_bias_act|ACT=2"
  local att; att=$(source_of attention_fwd)
  if [ -f "$att" ] && declares "$att" HD; then
    for d in 64 128; do
      echo "attention_fwd_d$d|attention_fwd|CAUSAL=0 HD=$d"
      echo "attention_fwd_d${d}_causal|attention_fwd|CAUSAL=1 HD=$d"
      if declares "$att" PINGPONG; then
        echo "attention_fwd_d${d}_simple|attention_fwd|CAUSAL=0 HD=$d PINGPONG=0"
        echo "attention_fwd_d${d}_causal_simple|attention_fwd|CAUSAL=1 HD=$d PINGPONG=0"
      fi
    done
  else
    echo "attention_fwd|attention_fwd|CAUSAL=0"
    echo "attention_fwd_causal|attention_fwd|CAUSAL=1"
  fi
  local km; km=$(source_of kmeans_assign)
  if [ -f "$km" ] && declares "$km" HD; then
    echo "kmeans_assign_d64|kmeans_assign|HD=64"
    echo "kmeans_assign_d128|kmeans_assign|HD=128"
    if declares "$km" SPLIT; then
      echo "kmeans_assign_split_d64|kmeans_assign|HD=64 SPLIT=1"
      echo "kmeans_assign_split_d128|kmeans_assign|HD=128 SPLIT=1"
    fi
  else
    echo "kmeans_assign|kmeans_assign|"
  fi
}

if [ "${1:-}" = "--list" ]; then variants; exit 0; fi
if [ $# -gt 0 ]; then echo "fragment_samples_build.sh: unknown argument '$1'" >&2; exit 2; fi
variants | sed 's#|\([a-z_0-9]*\)|#|samples/\1.cake|#' | bash "$repo/bench/build_variants.sh" "$repo/bench/out/fragments"
