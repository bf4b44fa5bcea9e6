#!/usr/bin/env bash
# bench/kmeans_build.sh: compiles the k-means kernels (kernels/kmeans/) and their -D variants for
# bench/kmeans_bench.py, on the development machine (no GPU), into bench/out/kmeans/ (bench/build_variants.sh:
# cubins, manifests, variants.json, the runtime library).
#
#   kmeans_assign_sm90_<dtype>_d<HD>[_bn<BN>_s<S>]   kernels/kmeans/assign_sm90.cake, -D T=<dtype> HD BN S
#
# Usage: bash bench/kmeans_build.sh [--list]
# Env: as bench/build_variants.sh (BUILD_DIR, CAKEC, RUNTIME_LIB); EXTRA_VARIANTS: more "name|source|defines"
#      lines (experiments).
set -u -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=kernels/kmeans/assign_sm90.cake

variants() {
  for t in bf16 f16; do
    echo "kmeans_assign_sm90_${t}_d64|$src|T=$t HD=64 BN=128 S=6"
    echo "kmeans_assign_sm90_${t}_d128|$src|T=$t HD=128 BN=128 S=4"
    echo "kmeans_assign_sm90_${t}_d128_bn64_s6|$src|T=$t HD=128 BN=64 S=6"
    echo "kmeans_assign_sm90_${t}_d256|$src|T=$t HD=256 BN=64 S=2"
  done
  [ -n "${EXTRA_VARIANTS:-}" ] && printf '%s\n' "$EXTRA_VARIANTS"
}

if [ "${1:-}" = "--list" ]; then variants; exit 0; fi
if [ $# -gt 0 ]; then echo "kmeans_build.sh: unknown argument '$1'" >&2; exit 2; fi
variants | bash "$repo/bench/build_variants.sh" "$repo/bench/out/kmeans"
