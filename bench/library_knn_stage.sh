#!/usr/bin/env bash
# bench/library_knn_stage.sh: lays out, on the development machine (no GPU), everything the device call of
# bench/library_knn_bench.py needs besides the git working tree, under bench/out/knnlib/ (git-ignored; the
# device tool carries it with `carry: ["bench/out/knnlib"]`):
#
#   cubins/knn_bf16/             `cakec library build kernels/kmeans/library_knn_bf16.json`
#   cubins/knn_small_bf16/       `cakec library build kernels/kmeans/library_knn_small_bf16.json` (the one-launch
#                                KNN of small problems, tried first)
#   cubins/kmeans_assign_bf16/   `cakec library build kernels/kmeans/library_assign_bf16.json`
#                                (cakeir.kmeans.Kernels(cubins) dispatches through these three folders)
#   cubins/libcake_runtime.so    the runtime library, and _prepared_call.abi3.so (the native prepared launch
#                                path, found beside $CAKE_RUNTIME_LIB)
#   peers/flashlib/              the flashlib package (github FlashML-org/flashlib at FLASHLIB_COMMIT, its
#                                flashlib/ folder and LICENSE only; never committed), from a git mirror
#   STAGED.txt                   what was staged: commits, variants, sizes
#
# Usage: bash bench/library_knn_stage.sh FLASHLIB_GIT_DIR
#   FLASHLIB_GIT_DIR: a git directory holding flashlib's history (e.g. the `fetch` tool's
#   /work/.mirror/FlashML-org+flashlib/repo).
# Env: CAKEC (default: build/cakec of this checkout, else /work/main/build/cakec), RUNTIME_DIR (the folder with
#      libcake_runtime.so; default: the one beside CAKEC's lib/), FLASHLIB_COMMIT (default 81e5dea, the commit
#      bench/results/2026-12-02-knn/ measured), NO_VERIFY=1 (build the variants with --no-verify: faster, for
#      experiments only), SKIP_BUILD=1 (keep the libraries already staged), KNN_SPEC / ASSIGN_SPEC / KNN_SMALL_SPEC (build these
#      specs instead of kernels/kmeans/library_{knn,assign}_bf16.json, e.g. the tables `python -m cakeir.generalize`
#      fitted to the training times; their "name" must stay knn_bf16 / kmeans_assign_bf16).
set -eu -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
flashlib_git=${1:?usage: library_knn_stage.sh FLASHLIB_GIT_DIR}
commit=${FLASHLIB_COMMIT:-81e5dea}
cakec=${CAKEC:-}
if [ -z "$cakec" ]; then
  if [ -x "$repo/build/cakec" ]; then cakec=$repo/build/cakec; else cakec=/work/main/build/cakec; fi
fi
runtime_dir=${RUNTIME_DIR:-$(dirname "$cakec")/lib}
dest=$repo/bench/out/knnlib
mkdir -p "$dest/cubins" "$dest/peers"

# 1. the two libraries (a failing build leaves no library.json: the script stops)
specs=("${KNN_SPEC:-$repo/kernels/kmeans/library_knn_bf16.json}" "${ASSIGN_SPEC:-$repo/kernels/kmeans/library_assign_bf16.json}"
       "${KNN_SMALL_SPEC:-$repo/kernels/kmeans/library_knn_small_bf16.json}")
for spec in "${specs[@]}"; do
  name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$spec")
  if [ "${SKIP_BUILD:-0}" = 1 ] && [ -f "$dest/cubins/$name/library.json" ]; then
    echo "== $name: kept (SKIP_BUILD=1)"
    continue
  fi
  use=$spec
  if [ "${NO_VERIFY:-0}" = 1 ]; then        # a copy of the spec beside it with --no-verify on every variant
    use=$(dirname "$spec")/.nv_$(basename "$spec")
    python3 - "$spec" "$use" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for v in doc["variants"]:
    v["options"] = ["--no-verify"]
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
  fi
  echo "== $name ($spec)"
  rm -rf "$dest/cubins/$name"
  start=$(date +%s)
  status=0
  "$cakec" library build "$use" -o "$dest/cubins/$name" || status=$?
  [ "$use" = "$spec" ] || rm -f "$use"
  [ $status -eq 0 ] || { echo "library_knn_stage.sh: cakec library build $spec failed" >&2; exit 1; }
  echo "   built in $(( $(date +%s) - start )) s"
done

# 2. the runtime library and the native prepared-launch module
cp "$runtime_dir/libcake_runtime.so" "$dest/cubins/"
if [ -f "$runtime_dir/_prepared_call.abi3.so" ]; then cp "$runtime_dir/_prepared_call.abi3.so" "$dest/cubins/"; fi

# 3. flashlib's package at the measured commit (its CuTe-DSL backends are stubbed at import time by the bench
#    when cutlass is missing, as bench/knn_bench.py and bench/kmeans_bench.py do)
rm -rf "$dest/peers/flashlib"
mkdir -p "$dest/peers/flashlib"
git --git-dir="$flashlib_git" archive "$commit" flashlib LICENSE | tar -C "$dest/peers/flashlib" -xf -
full=$(git --git-dir="$flashlib_git" rev-parse "$commit^{commit}")

# 4. check: every variant's cubin and manifest is there, the runtime loads the libraries' manifests, the peer's
#    entry points are present
python3 - "$dest" <<'PY'
import json, os, sys
dest = sys.argv[1]
for name in ("knn_bf16", "kmeans_assign_bf16", "knn_small_bf16"):
    doc = json.load(open(os.path.join(dest, "cubins", name, "library.json")))
    for v in doc["variants"]:
        for f in (v["manifest"], v["manifest"][:-len(".json")]):
            if not os.path.isfile(os.path.join(dest, "cubins", name, f)):
                sys.exit("library_knn_stage.sh: %s/%s is missing" % (name, f))
    print("%s: %d variants, %d dispatch entries" % (name, len(doc["variants"]), len(doc["dispatch"])))
for f in ("flashlib/primitives/knn/triton/dispatch.py", "flashlib/primitives/kmeans/triton/assign.py"):
    if not os.path.isfile(os.path.join(dest, "peers", "flashlib", f)):
        sys.exit("library_knn_stage.sh: peers/flashlib/%s is missing" % f)
PY
{
  echo "staged $(date -u +%FT%TZ) by bench/library_knn_stage.sh"
  echo "cake commit: $(git -C "$repo" rev-parse HEAD)$(git -C "$repo" diff --quiet || echo ' (with uncommitted changes)')"
  echo "cakec: $cakec ($("$cakec" --version 2>&1 | head -n 1))"
  echo "flashlib: $full"
  du -sh "$dest"/cubins/* "$dest/peers/flashlib"
} > "$dest/STAGED.txt"
cat "$dest/STAGED.txt"
