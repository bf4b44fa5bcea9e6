#!/usr/bin/env bash
# bench/build.sh: builds what the H200 benchmark needs, on the development machine (no GPU needed).
#
#   1. cakec, libcake_runtime.so and, where Python 3.11+ headers are installed, the Python package's native
#      launch path _prepared_call.abi3.so (cmake + ninja/make in $BUILD_DIR, default build-bench; Release;
#      libstdc++/libgcc linked statically into the runtime so it loads on a machine with an older libstdc++);
#   2. every samples/*.cake compiled to bench/out/<arch>/<name>.cubin (+ .cubin.json):
#        sm_90a for the samples that declare it (`target sm_90a;`: the Hopper-only ones), sm_90 for the others;
#      a compile whose only errors are the verifier's (E06xx: an obligation refuted or unproven) is rebuilt with
#      --no-verify and recorded as "ok-unverified";
#      a compile that fails with E0701 (construct not lowered yet) is recorded as "unsupported" and skipped,
#      one the front end refuses for that arch as "skip-sema"; any other failure is "FAIL" (exit 1 at the end);
#   3. libcake_runtime.so and _prepared_call.abi3.so copied to bench/out/ (cakeir finds the extension beside
#      the library it loads, $CAKE_RUNTIME_LIB), and bench/out/build_info.json: git commit (the device copy of
#      the tree may have no .git), dirty flag, date, tool versions and the per-sample compile results, which
#      run_bench.py reports.
#
# bench/out is git-ignored; carry it to the device machine (docs/gpu.md).  bench/out/previous/ is kept across
# builds: an earlier build of _prepared_call.abi3.so put there is what bench/launch_overhead.py times as
# "cakeir-previous".
# Usage: bench/build.sh [--no-build]      (--no-build: reuse the existing cakec/runtime in $BUILD_DIR)
# Env:   BUILD_DIR (default <repo>/build-bench), JOBS (default 2), CAKEC (use this cakec, implies --no-build
#        for cakec), ARCHS (default "sm_90 sm_90a").
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
jobs=${JOBS:-2}
archs=${ARCHS:-"sm_90 sm_90a"}
out=$repo/bench/out
do_build=1
for arg in "$@"; do
  case $arg in
    --no-build) do_build=0 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "build.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

# ---- 1. build
if [ $do_build = 1 ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q 'static-libstdc' "$build/CMakeCache.txt"; then
    cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      "-DCMAKE_SHARED_LINKER_FLAGS=-static-libstdc++ -static-libgcc" >"$build.cmake.log" 2>&1 \
      || { cat "$build.cmake.log"; echo "build.sh: cmake failed" >&2; exit 1; }
  fi
  targets=(cake_runtime)
  cmake --build "$build" --target help 2>/dev/null | grep -q cakeir_prepared_call && targets+=(cakeir_prepared_call)
  [ -z "${CAKEC:-}" ] && targets+=(cakec)
  cmake --build "$build" -j "$jobs" --target "${targets[@]}" \
    || { echo "build.sh: build failed" >&2; exit 1; }
fi
cakec=${CAKEC:-$build/cakec}
runtime_lib=$build/lib/libcake_runtime.so
[ -x "$cakec" ] || { echo "build.sh: no cakec at $cakec" >&2; exit 1; }
[ -f "$runtime_lib" ] || { echo "build.sh: no runtime library at $runtime_lib" >&2; exit 1; }

# ---- 2. compile the samples
mkdir -p "$out"
find "$out" -mindepth 1 -maxdepth 1 ! -name previous -exec rm -rf {} +
results=()      # JSON objects, one per (sample, arch)
status=0
json_str() {    # JSON string literal of $1 (escapes \ " and control characters)
  python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().rstrip("\n")))' <<<"$1"
}
cd "$repo" || exit 1   # relative paths in the messages below
for src in samples/*.cake; do
  name=$(basename "$src" .cake)
  declared=$(sed -n 's/^[[:space:]]*target[[:space:]]\+\(sm_[0-9a-z]*\)[[:space:]]*;.*/\1/p' "$src" | head -n 1)
  for arch in $archs; do
    # `a` targets (sm_90a) for the samples that declare one (the Hopper-only samples), the others for the rest
    is_a=0; [ "${arch%a}" != "$arch" ] && is_a=1
    wants_a=0; [ "${declared%a}" != "$declared" ] && wants_a=1
    [ $is_a = $wants_a ] || continue
    mkdir -p "$out/$arch"
    log=$("$cakec" --arch "$arch" "$src" -o "$out/$arch/$name.cubin" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && echo "$log" | grep -qE '\[E06[0-9]{2}\]' && ! echo "$log" | grep -E 'error: ' | grep -qvE '\[E06[0-9]{2}\]'; then
      # only the verifier's obligations failed or stayed unproven (E06xx): build it anyway, marked as such
      log=$("$cakec" --no-verify --arch "$arch" "$src" -o "$out/$arch/$name.cubin" 2>&1)
      rc=$?
      [ $rc -eq 0 ] && log="unverified: the verifier did not prove every obligation (built with --no-verify)"
      verified=0
    else
      verified=1
    fi
    if [ $rc -eq 0 ] && [ -s "$out/$arch/$name.cubin" ] && [ -s "$out/$arch/$name.cubin.json" ]; then
      st=ok; [ $verified = 0 ] && st=ok-unverified
    elif echo "$log" | grep -qE 'E0701|not supported by code generation yet'; then
      st=unsupported        # codegen does not lower some construct yet
    elif ! "$cakec" --verify-only --arch "$arch" "$src" >/dev/null 2>&1; then
      st=skip-sema          # the sample is not valid for this arch (e.g. an sm_90a sample on sm_90)
    else
      st=FAIL
      status=1
    fi
    first=$(echo "$log" | grep -m1 -E 'error|E0[0-9]{3}|unverified' || true)
    printf '%-18s %-7s %s%s\n' "$name" "$arch" "$st" "${first:+  ($first)}"
    [ "$st" = FAIL ] && echo "$log" | sed 's/^/    /'
    results+=("{\"sample\": \"$name\", \"arch\": \"$arch\", \"status\": \"$st\", \"detail\": $(json_str "$first")}")
  done
done
rmdir "$out"/* 2>/dev/null   # arch folders left empty

# ---- 3. runtime library and build_info.json
cp "$runtime_lib" "$out/libcake_runtime.so"
[ -f "$build/lib/_prepared_call.abi3.so" ] && cp "$build/lib/_prepared_call.abi3.so" "$out/"
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=false
if [ "$commit" != unknown ] && [ -n "$(git -C "$repo" status --porcelain -- src runtime samples bench 2>/dev/null)" ]; then
  dirty=true
fi
ptxas_version=$( (ptxas --version 2>/dev/null || /usr/local/cuda/bin/ptxas --version 2>/dev/null) | tail -n 1)
glibc_needed=$(objdump -T "$out/libcake_runtime.so" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
{
  echo "{"
  echo "  \"commit\": \"$commit\","
  echo "  \"dirty\": $dirty,"
  echo "  \"built\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo "  \"cakec_version\": $(json_str "$("$cakec" --version 2>&1 | head -n 1)"),"
  echo "  \"ptxas_version\": $(json_str "$ptxas_version"),"
  echo "  \"runtime_needs\": $(json_str "${glibc_needed:-unknown}"),"
  echo "  \"samples\": ["
  for i in "${!results[@]}"; do
    sep=,; [ $i -eq $((${#results[@]} - 1)) ] && sep=
    echo "    ${results[$i]}$sep"
  done
  echo "  ]"
  echo "}"
} >"$out/build_info.json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/build_info.json" \
  || { echo "build.sh: wrote invalid build_info.json" >&2; exit 1; }
echo "build.sh: wrote $out (commit ${commit:0:12}$([ $dirty = true ] && echo ' +dirty'))"
[ $status = 0 ] || echo "build.sh: some samples FAILED to compile (see above)" >&2
exit $status
