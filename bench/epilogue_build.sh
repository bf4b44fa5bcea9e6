#!/usr/bin/env bash
# bench/epilogue_build.sh: compiles the TMA-store-epilogue GEMM (samples/hopper_gemm_tma_epilogue.cake) in the
# variants bench/epilogue_bench.py measures on the H200 against samples/hopper_gemm_persistent (masked
# st.global epilogue) and torch.matmul, on the development machine (no GPU).
#
#   bench/out/epilogue/<variant>.cubin + .cubin.json (manifest) for every variant below, and
#   bench/out/epilogue/variants.json: name, defines, status (ok / ok-unverified / FAIL), ptxas's
#   registers and spills (cakec -v), and the first verifier line when the build needed --no-verify.
#   A variant whose only errors are the verifier's (E06xx: the persistent tile loop is not proven yet,
#   as for hopper_gemm_persistent) is rebuilt with --no-verify ("ok-unverified").
#   A variant with ptxas spills is FAIL (the epilogue must not spill).
#
# Run after bench/build.sh (which builds cakec and recreates bench/out); this script writes only under
# bench/out/epilogue/ (recreated).  Usage: bash bench/epilogue_build.sh [--list]
# Env: BUILD_DIR (default <repo>/build-bench), CAKEC (a cakec to use instead of $BUILD_DIR/cakec),
#      BASELINE_REV (a git revision: also build that revision's sample, as variants named base_<variant>,
#      for an A/B of a change to the sample in one run).
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
cakec=${CAKEC:-$build/cakec}
src=$repo/samples/hopper_gemm_tma_epilogue.cake
out=$repo/bench/out/epilogue

# name | defines (space separated NAME=VALUE; empty: the sample's defaults BN=256 S=3)
variants() {
  echo "tma_epi_bn256_s3|"
  echo "tma_epi_bn128_s5|BN=128 S=5"
  echo "tma_epi_bn128_s4|BN=128 S=4"
}

if [ "${1:-}" = "--list" ]; then variants; exit 0; fi
if [ $# -gt 0 ]; then echo "epilogue_build.sh: unknown argument '$1'" >&2; exit 2; fi
[ -x "$cakec" ] || { echo "epilogue_build.sh: no cakec at $cakec (run bash bench/build.sh first)" >&2; exit 1; }
[ -f "$src" ] || { echo "epilogue_build.sh: no $src" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
rows=()
status=0
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().rstrip("\n")))' <<<"$1"; }
all_variants() {
  variants | sed "s|\$|\|$src|"
  if [ -n "${BASELINE_REV:-}" ]; then
    git -C "$repo" show "$BASELINE_REV:samples/hopper_gemm_tma_epilogue.cake" >"$out/baseline.cake" || exit 1
    variants | sed "s|^|base_|; s|\$|\|$out/baseline.cake|"
  fi
}
while IFS='|' read -r name defs file; do
  args=()
  for d in $defs; do args+=(-D "$d"); done
  st=ok detail=""
  log=$("$cakec" -v "${args[@]}" "$file" -o "$out/$name.cubin" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && ! grep -q 'error: ' <<<"$(grep -v '\[E06[0-9][0-9]\]' <<<"$log")"; then
    detail=$(grep -m1 'error:' <<<"$log")
    log=$("$cakec" -v --no-verify "${args[@]}" "$file" -o "$out/$name.cubin" 2>&1)
    rc=$?
    st=ok-unverified
  fi
  regs=$(sed -n 's/.*(sm_90a): \([0-9]*\) registers.*/\1/p' <<<"$log" | head -n1)
  spills=$(sed -n 's/.*, \([0-9]*\) bytes spill stores.*/\1/p' <<<"$log" | head -n1)
  if [ $rc -ne 0 ] || [ ! -s "$out/$name.cubin" ] || [ ! -s "$out/$name.cubin.json" ]; then
    st=FAIL detail=$(grep -m1 'error' <<<"$log")
    status=1
  elif [ "${spills:-0}" != "0" ]; then
    st=FAIL detail="ptxas spills $spills bytes"
    status=1
  fi
  printf '%-20s %-14s regs=%s spills=%s %s\n' "$name" "$st" "${regs:-?}" "${spills:-?}" "$detail"
  rows+=("{\"name\": \"$name\", \"defines\": $(json_str "$defs"), \"status\": \"$st\", \"registers\": ${regs:-null}, \"spill_bytes\": ${spills:-null}, \"detail\": $(json_str "$detail")}")
done < <(all_variants)

{
  echo "{\"sample\": \"hopper_gemm_tma_epilogue\", \"variants\": ["
  for i in "${!rows[@]}"; do
    [ "$i" -gt 0 ] && echo ","
    printf '  %s' "${rows[$i]}"
  done
  echo
  echo "]}"
} >"$out/variants.json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/variants.json" \
  || { echo "epilogue_build.sh: wrote invalid variants.json" >&2; exit 1; }
exit $status
