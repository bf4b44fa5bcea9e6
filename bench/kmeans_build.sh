#!/usr/bin/env bash
# bench/kmeans_build.sh: compiles the k-means kernels (kernels/kmeans/) and their -D variants for
# bench/kmeans_bench.py, on the development machine (no GPU), into bench/out/kmeans/ (bench/build_variants.sh:
# cubins, manifests, variants.json with each variant's verification status, the runtime library).
#
#   kmeans_assign_sm90_<dtype>_d<HD>         kernels/kmeans/assign_sm90.cake, -D T=<dtype> HD (D = 256: BN = 64,
#                                            S = 2, AREG = 0; the registers hold no X tile of 256 columns;
#                                            D = 64: QUAD = 0, measured faster there)
#   kmeans_assign_sm80_<dtype>_d<HD>         kernels/kmeans/assign_sm80.cake (mma.sync; D = 256: BN = 32, S = 2 for
#                                            sm_80's shared memory), built with --arch=sm_90 to be timed on the
#                                            H200 (a cubin runs only on its own architecture family: for an
#                                            Ampere GPU, build it without --arch)
#   knn_sm90_<dtype>_d<HD>[_k16|_k32|_k64]   the same file for knn_topk / knn_merge (KK = 10, 16, 32, 64
#                                            neighbours; KK = 16, 32, 64: QL = 1, the row's list spread over the
#                                            quad, KK = 64 with BN = 64); AREG = 0 (the top-k lists need the
#                                            registers that X would take); _ql: the QL = 1 epilogue at KK = 10
#                                            (timed against the default by bench/knn_bench.py).  QL = 0 spills
#                                            for KK >= 16 (KK = 32 with BN = 64: 44 bytes), KK = 64 with
#                                            BN = 128 20 bytes, AREG = 1 16 bytes: not built
#   centroid_update_<dtype>_d<HD>[_private]  kernels/kmeans/centroid_update.cake; _private: the bench uses
#                                            centroid_accumulate_private (K <= KMAX)
#
# Usage: bash bench/kmeans_build.sh [--list]
# Env: as bench/build_variants.sh (BUILD_DIR, CAKEC, RUNTIME_LIB); EXTRA_VARIANTS: more "name|source|defines"
#      lines (experiments).
set -u -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
assign=kernels/kmeans/assign_sm90.cake
assign80=kernels/kmeans/assign_sm80.cake
update=kernels/kmeans/centroid_update.cake

variants() {
  for t in bf16 f16; do
    echo "kmeans_assign_sm90_${t}_d64|$assign|T=$t HD=64 QUAD=0"
    echo "kmeans_assign_sm90_${t}_d128|$assign|T=$t HD=128"
    echo "kmeans_assign_sm90_${t}_d256|$assign|T=$t HD=256 BN=64 S=2 AREG=0"
    echo "kmeans_assign_sm80_${t}_d64|$assign80|T=$t HD=64 --arch=sm_90"
    echo "kmeans_assign_sm80_${t}_d128|$assign80|T=$t HD=128 --arch=sm_90"
    echo "kmeans_assign_sm80_${t}_d256|$assign80|T=$t HD=256 BN=32 S=2 --arch=sm_90"
    echo "knn_sm90_${t}_d64|$assign|T=$t HD=64"
    echo "knn_sm90_${t}_d128|$assign|T=$t HD=128"
    echo "knn_sm90_${t}_d256|$assign|T=$t HD=256 BN=64 S=2 AREG=0"
    echo "knn_sm90_${t}_d256_k16|$assign|T=$t HD=256 BN=64 S=2 AREG=0 KK=16"
    echo "knn_sm90_${t}_d256_k32|$assign|T=$t HD=256 BN=64 S=2 AREG=0 KK=32 QL=1"
    echo "knn_sm90_${t}_d256_k64|$assign|T=$t HD=256 BN=64 S=2 AREG=0 KK=64 QL=1"
    for d in 64 128; do
      echo "knn_sm90_${t}_d${d}_k16|$assign|T=$t HD=$d KK=16 QL=1"
      echo "knn_sm90_${t}_d${d}_k32|$assign|T=$t HD=$d KK=32 QL=1"
      echo "knn_sm90_${t}_d${d}_k64|$assign|T=$t HD=$d KK=64 QL=1 BN=64"
    done
    echo "centroid_update_${t}_d64|$update|T=$t HD=64 RPB=32"
    echo "centroid_update_${t}_d64_private|$update|T=$t HD=64 RPB=32 DS=64 KMAX=256"
    echo "centroid_update_${t}_d128_private|$update|T=$t HD=128 DS=32 KMAX=1024"
    echo "centroid_update_${t}_d128|$update|T=$t HD=128 RPB=32"
    echo "centroid_update_${t}_d256|$update|T=$t HD=256 RPB=8"
  done
  for d in 64 128; do
    echo "knn_sm90_bf16_d${d}_ql|$assign|T=bf16 HD=$d QL=1"
  done
  # measured alternatives (bench/results/): the per-tile quad argmin, other segment_sums pieces
  echo "kmeans_assign_sm90_bf16_d128_quad0|$assign|T=bf16 HD=128 QUAD=0"
  echo "kmeans_assign_sm90_f16_d64_quad1|$assign|T=f16 HD=64 QUAD=1"
  echo "centroid_update_bf16_d128_r64|$update|T=bf16 HD=128 RPB=32 R=64"
  echo "centroid_update_f16_d128_r64|$update|T=f16 HD=128 RPB=32 R=64"
  if [ -n "${EXTRA_VARIANTS:-}" ]; then printf '%s\n' "$EXTRA_VARIANTS"; fi
}

if [ "${1:-}" = "--list" ]; then variants; exit 0; fi
if [ $# -gt 0 ]; then echo "kmeans_build.sh: unknown argument '$1'" >&2; exit 2; fi
variants | bash "$repo/bench/build_variants.sh" "$repo/bench/out/kmeans"
