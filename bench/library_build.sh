#!/usr/bin/env bash
# bench/library_build.sh: builds the shipped kernel libraries (kernels/*/library_*.json) with `cakec library
# build` into build/libraries/<name>/, on the development machine (no GPU needed), for bench/library_bench.py
# and bench/library_dispatch.py.  Usage: bash bench/library_build.sh [SPEC...]   Env: CAKEC (default build/cakec).
set -eu -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cakec=${CAKEC:-$repo/build/cakec}
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("$repo"/kernels/gemm/library_bf16_sm90.json "$repo"/kernels/kmeans/library_assign_bf16.json
                                "$repo"/kernels/kmeans/library_knn_bf16.json)
for spec in "${specs[@]}"; do
  name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$spec")
  echo "== $name ($spec)"
  "$cakec" library build "$spec" -o "$repo/build/libraries/$name"
done
