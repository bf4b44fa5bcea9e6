#!/usr/bin/env bash
# bench/build_variants.sh: compiles a list of kernel variants for the H200 benches, on the development machine
# (no GPU).  Reads lines "name|source.cake|DEF=V DEF=V" (source relative to the repository root; a word
# starting with "--" is a cakec option, e.g. --arch=sm_90; max-spills=N lets ptxas spill up to N bytes, where a
# variant's register cap is known to cost a few straight-line spills) on stdin and
# writes into OUT_DIR (emptied first):
#
#   OUT_DIR/<name>.cubin + .cubin.json   every variant whose source exists;
#   OUT_DIR/variants.json                name, source, defines, status, registers, spills, detail, commit;
#   OUT_DIR/libcake_runtime.so           the runtime the benches load.
#
# Status per variant: ok; ok-unverified (the only errors were the verifier's, E06xx: rebuilt with --no-verify,
# as bench/build.sh does; detail = the first one); missing (no source: skipped); FAIL (any other error, or
# ptxas spills beyond max-spills (default 0): exit 1 at the end, the other variants are still built).
# Usage: ... | bash bench/build_variants.sh OUT_DIR
# Env: BUILD_DIR (default <repo>/build-bench: its cakec and lib/libcake_runtime.so), CAKEC (a cakec to use
#      instead), RUNTIME_LIB (a libcake_runtime.so to copy instead), NO_VERIFY=1 (build every variant with
#      --no-verify: status ok-unverified, for quick rebuilds; the verification is then someone else's).
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
cakec=${CAKEC:-$build/cakec}
runtime_lib=${RUNTIME_LIB:-$build/lib/libcake_runtime.so}
out=${1:?usage: bash bench/build_variants.sh OUT_DIR (variant lines on stdin)}
case $out in /*) ;; *) out=$PWD/$out ;; esac
[ -x "$cakec" ] || { echo "build_variants.sh: no cakec at $cakec (bash bench/build.sh builds one)" >&2; exit 1; }

cd "$repo" || exit 1   # relative paths in the messages
rm -rf "$out"
mkdir -p "$out"
rows=()
status=0
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().rstrip("\n")))' <<<"$1"; }
while IFS='|' read -r name src defs; do
  [ -n "$name" ] || continue
  regs="" spills="" detail=""
  if [ ! -f "$src" ]; then
    st=missing detail="$src does not exist"
  else
    args=()
    max_spills=0
    for d in $defs; do
      case $d in --*) args+=("$d") ;; max-spills=*) max_spills=${d#max-spills=} ;; *) args+=(-D "$d") ;; esac
    done
    st=ok
    if [ "${NO_VERIFY:-0}" = 1 ]; then
      args+=(--no-verify)
      st=ok-unverified detail="built with --no-verify (NO_VERIFY=1)"
    fi
    log=$("$cakec" -v "${args[@]}" "$src" -o "$out/$name.cubin" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && grep -q '\[E06[0-9][0-9]\]' <<<"$log" && \
       ! grep -q 'error: ' <<<"$(grep -v '\[E06[0-9][0-9]\]' <<<"$log")"; then
      detail=$(grep -m1 'error:' <<<"$log")
      log=$("$cakec" -v --no-verify "${args[@]}" "$src" -o "$out/$name.cubin" 2>&1)
      rc=$?
      st=ok-unverified
    fi
    # the largest over the file's kernels
    regs=$(sed -n 's/.*(sm_[0-9]*a\?): \([0-9]*\) registers.*/\1/p' <<<"$log" | sort -n | tail -n1)
    spills=$(sed -n 's/.*, \([0-9]*\) bytes spill stores.*/\1/p' <<<"$log" | sort -n | tail -n1)
    if [ $rc -ne 0 ] || [ ! -s "$out/$name.cubin" ] || [ ! -s "$out/$name.cubin.json" ]; then
      st=FAIL detail=$(grep -m1 'error' <<<"$log")
      rm -f "$out/$name.cubin" "$out/$name.cubin.json"
      status=1
    elif [ "${spills:-0}" -gt "$max_spills" ]; then
      st=FAIL detail="ptxas spills $spills bytes"
      rm -f "$out/$name.cubin" "$out/$name.cubin.json"
      status=1
    elif [ "${spills:-0}" != "0" ]; then
      detail="ptxas spills $spills bytes (max-spills=$max_spills)"
    fi
  fi
  printf '%-28s %-14s regs=%s spills=%s %s\n' "$name" "$st" "${regs:-?}" "${spills:-?}" "$detail"
  rows+=("{\"name\": \"$name\", \"source\": \"$src\", \"defines\": $(json_str "$defs"), \"status\": \"$st\", \"registers\": ${regs:-null}, \"spill_bytes\": ${spills:-null}, \"detail\": $(json_str "$detail")}")
done

if [ -f "$runtime_lib" ]; then
  cp "$runtime_lib" "$out/libcake_runtime.so"
else
  echo "build_variants.sh: no runtime library at $runtime_lib (the benches fall back to bench/out's)" >&2
fi
commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
{
  echo "{\"commit\": \"$commit\", \"built\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\","
  echo " \"cakec_version\": $(json_str "$("$cakec" --version 2>&1 | head -n 1)"), \"variants\": ["
  for i in "${!rows[@]}"; do
    [ "$i" -gt 0 ] && echo ","
    printf '  %s' "${rows[$i]}"
  done
  echo
  echo "]}"
} >"$out/variants.json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/variants.json" \
  || { echo "build_variants.sh: wrote invalid variants.json" >&2; exit 1; }
exit $status
