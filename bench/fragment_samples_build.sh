#!/usr/bin/env bash
# bench/fragment_samples_build.sh: compiles the fragment-epilogue samples and their -D variants for the H200 benches
# (bench/attention_bench.py, bench/gemm_bias_act_bench.py, bench/kmeans_assign_bench.py), on the development
# machine (no GPU):
#
#   bench/out/fragments/<variant>.cubin + .cubin.json   every variant below whose sample exists;
#   bench/out/fragments/variants.json                    name, sample, defines, status, registers, spills, detail;
#   bench/out/fragments/libcake_runtime.so               the runtime the benches load.
#
#   hopper_gemm_persistent            the plain persistent GEMM (the baseline of gemm_bias_act)
#   gemm_bias_act_{relu,gelu,silu}    samples/gemm_bias_act.cake with -D ACT=0 / 1 / 2
#   attention_fwd_d{64,128}[_causal]  samples/attention_fwd.cake with -D CAUSAL=0/1 and -D HD=64/128 (HD only
#                                     when the sample declares it; else attention_fwd[_causal])
#   kmeans_assign_d{64,128}           samples/kmeans_assign.cake with -D HD=64/128 (HD only when declared)
#
# Status per variant: ok; ok-unverified (the only errors were the verifier's, E06xx: rebuilt with --no-verify,
# as bench/build.sh does); draft (only samples/drafts/<sample>.cake.draft exists, a sample written ahead of the
# language features it needs: not built; detail = its first --verify-only error, or that it verifies now);
# missing (no sample yet: skipped); FAIL (any other error, or ptxas
# spills: exit 1 at the end, the other variants are still built).
# Usage: bash bench/fragment_samples_build.sh [--list]
# Env: BUILD_DIR (default <repo>/build-bench: its cakec and lib/libcake_runtime.so), CAKEC (a cakec to use
#      instead), RUNTIME_LIB (a libcake_runtime.so to copy instead).
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
cakec=${CAKEC:-$build/cakec}
runtime_lib=${RUNTIME_LIB:-$build/lib/libcake_runtime.so}
out=$repo/bench/out/fragments

declares() {   # declares SAMPLE_FILE NAME: the kernel header has a compile-time parameter NAME = ...
  grep -qE "[<,][[:space:]]*$2[[:space:]]*=" "$1"
}
source_of() {  # the sample's file: samples/NAME.cake, else its draft
  if [ -f "$repo/samples/$1.cake" ]; then echo "$repo/samples/$1.cake"; else echo "$repo/samples/drafts/$1.cake.draft"; fi
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
    done
  else
    echo "attention_fwd|attention_fwd|CAUSAL=0"
    echo "attention_fwd_causal|attention_fwd|CAUSAL=1"
  fi
  local km; km=$(source_of kmeans_assign)
  if [ -f "$km" ] && declares "$km" HD; then
    echo "kmeans_assign_d64|kmeans_assign|HD=64"
    echo "kmeans_assign_d128|kmeans_assign|HD=128"
  else
    echo "kmeans_assign|kmeans_assign|"
  fi
}

if [ "${1:-}" = "--list" ]; then variants; exit 0; fi
if [ $# -gt 0 ]; then echo "fragment_samples_build.sh: unknown argument '$1'" >&2; exit 2; fi
[ -x "$cakec" ] || { echo "fragment_samples_build.sh: no cakec at $cakec (bash bench/build.sh builds one)" >&2; exit 1; }

cd "$repo" || exit 1   # relative paths in the messages
rm -rf "$out"
mkdir -p "$out"
rows=()
status=0
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().rstrip("\n")))' <<<"$1"; }
while IFS='|' read -r name sample defs; do
  src=samples/$sample.cake
  regs="" spills="" detail=""
  draft=samples/drafts/$sample.cake.draft
  if [ ! -f "$src" ] && [ -f "$draft" ]; then
    # a draft waiting for language features: say whether it verifies yet (first error otherwise)
    args=()
    for d in $defs; do args+=(-D "$d"); done
    log=$("$cakec" --verify-only --arch sm_90a "${args[@]}" "$draft" 2>&1)
    st=draft detail=$(grep -m1 'error' <<<"$log" || echo "draft verifies: move it to samples/$sample.cake")
  elif [ ! -f "$src" ]; then
    st=missing detail="samples/$sample.cake does not exist"
  else
    args=()
    for d in $defs; do args+=(-D "$d"); done
    st=ok
    log=$("$cakec" -v "${args[@]}" "$src" -o "$out/$name.cubin" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && grep -q '\[E06[0-9][0-9]\]' <<<"$log" && \
       ! grep -q 'error: ' <<<"$(grep -v '\[E06[0-9][0-9]\]' <<<"$log")"; then
      detail=$(grep -m1 'error:' <<<"$log")
      log=$("$cakec" -v --no-verify "${args[@]}" "$src" -o "$out/$name.cubin" 2>&1)
      rc=$?
      st=ok-unverified
    fi
    regs=$(sed -n 's/.*(sm_90a\?): \([0-9]*\) registers.*/\1/p' <<<"$log" | head -n1)
    spills=$(sed -n 's/.*, \([0-9]*\) bytes spill stores.*/\1/p' <<<"$log" | head -n1)
    if [ $rc -ne 0 ] || [ ! -s "$out/$name.cubin" ] || [ ! -s "$out/$name.cubin.json" ]; then
      st=FAIL detail=$(grep -m1 'error' <<<"$log")
      rm -f "$out/$name.cubin" "$out/$name.cubin.json"
      status=1
    elif [ "${spills:-0}" != "0" ]; then
      st=FAIL detail="ptxas spills $spills bytes"
      rm -f "$out/$name.cubin" "$out/$name.cubin.json"
      status=1
    fi
  fi
  printf '%-28s %-14s regs=%s spills=%s %s\n' "$name" "$st" "${regs:-?}" "${spills:-?}" "$detail"
  rows+=("{\"name\": \"$name\", \"sample\": \"$sample\", \"defines\": $(json_str "$defs"), \"status\": \"$st\", \"registers\": ${regs:-null}, \"spill_bytes\": ${spills:-null}, \"detail\": $(json_str "$detail")}")
done < <(variants)

if [ -f "$runtime_lib" ]; then
  cp "$runtime_lib" "$out/libcake_runtime.so"
else
  echo "fragment_samples_build.sh: no runtime library at $runtime_lib (the benches fall back to bench/out's)" >&2
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
  || { echo "fragment_samples_build.sh: wrote invalid variants.json" >&2; exit 1; }
exit $status
