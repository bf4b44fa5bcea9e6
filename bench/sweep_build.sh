#!/usr/bin/env bash
# bench/sweep_build.sh: compiles the compile-time variants that bench/sweep_bench.py measures on the H200 for
# the cost model's held-out evaluation (docs/cost-model.md section 5), on the development machine (no GPU).
#
#   GEMM tile/stage variants of samples/hopper_gemm_persistent (BN x S, and the group size GM),
#   samples/hopper_gemm (BN x S) and samples/ampere_gemm (BM/BN/BK/WM/WN/S), row_softmax (WARPS x VPT) and
#   vector_add (THREADS): each -D variant becomes bench/out/sweep/<name>.cubin (+ .cubin.json manifest).
#   A variant the front end refuses (requires, shared memory: E04xx) is recorded as "rejected" and skipped;
#   one whose only errors are the verifier's (E06xx: an obligation refuted or unproven) is rebuilt with
#   --no-verify and recorded as "ok-unverified" (bench/sweep_bench.py checks every variant's results anyway).
#   bench/out/sweep/variants.json lists every variant: name, sample, kernel, arch, defines, status, detail.
#
# Run after bench/build.sh (which builds cakec and the runtime and recreates bench/out); this script writes
# only under bench/out/sweep/ (recreated) and never touches the rest of bench/out.
# Usage: bash bench/sweep_build.sh [--list]      (--list: print the variants and exit)
# Env:   BUILD_DIR (default <repo>/build-bench), CAKEC (a cakec to use instead of $BUILD_DIR/cakec),
#        JOBS (parallel compiles, default 2).
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$repo/build-bench}
cakec=${CAKEC:-$build/cakec}
jobs=${JOBS:-2}
out=$repo/bench/out/sweep

# name | sample | kernel | arch | defines (space separated NAME=VALUE; empty: the sample's defaults)
variants() {
  # hopper_gemm_persistent: BN in 128/192/256 x S in 3/4/5 where the stage ring fits (BN=256, S=5: 240 KB
  # of shared memory > 227 KB, refused by sema), plus group sizes GM of the tile scheduler
  for bn in 128 192 256; do
    for s in 3 4 5; do echo "hgp_bn${bn}_s${s}|hopper_gemm_persistent|hopper_gemm_persistent|sm_90a|BN=$bn S=$s"; done
  done
  for gm in 1 4 16; do echo "hgp_bn256_s4_gm${gm}|hopper_gemm_persistent|hopper_gemm_persistent|sm_90a|BN=256 S=4 GM=$gm"; done
  # hopper_gemm (one tile per CTA): BN 128 (S 3..6) and 256 (S 2..4); BN=192 would need N % 192 == 0
  for s in 3 4 5 6; do echo "hg_bn128_s${s}|hopper_gemm|hopper_gemm|sm_90a|BN=128 S=$s"; done
  for s in 2 3 4; do echo "hg_bn256_s${s}|hopper_gemm|hopper_gemm|sm_90a|BN=256 S=$s"; done
  # ampere_gemm (mma.sync + cp.async): every compile-time parameter pinned, so a change of the sample's
  # defaults does not change the variants; `requires` refuses the illegal ones (recorded as rejected)
  while read -r bm bn bk wm wn s; do
    echo "ag_${bm}x${bn}x${bk}_w${wm}x${wn}_s${s}|ampere_gemm|ampere_gemm|sm_90|BM=$bm BN=$bn BK=$bk WM=$wm WN=$wn S=$s"
  done <<'EOF'
128 256 64 64 64 3
128 256 64 64 64 4
128 256 32 64 64 4
128 256 32 64 64 5
128 128 32 64 64 4
128 128 64 64 64 3
256 128 64 64 64 4
128 128 64 64 64 4
64 256 32 32 64 4
128 128 32 32 64 4
64 128 32 32 64 4
128 64 64 64 32 3
EOF
  # row_softmax (bf16 kernel): WARPS x VPT (rows per block x 16-byte vectors per lane and row)
  for wv in "8 4" "4 4" "16 4" "8 2" "16 2" "32 1" "4 8"; do
    set -- $wv
    echo "sm_w$1_v$2|row_softmax|row_softmax|sm_90|WARPS=$1 VPT=$2"
  done
  # vector_add: THREADS per block
  for t in 64 128 256 512 1024; do echo "va_t${t}|vector_add|vector_add|sm_90|THREADS=$t"; done
}

if [ "${1:-}" = --list ]; then variants; exit 0; fi
[ $# -eq 0 ] || { echo "sweep_build.sh: unknown argument '$1'" >&2; exit 2; }
[ -x "$cakec" ] || { echo "sweep_build.sh: no cakec at $cakec (run bash bench/build.sh first)" >&2; exit 1; }
[ -d "$repo/bench/out" ] || { echo "sweep_build.sh: no bench/out (run bash bench/build.sh first)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/logs"
cd "$repo" || exit 1

# compile_one LINE: compiles one variant, writes $out/logs/<name>.status (one JSON object)
compile_one() {
  IFS='|' read -r name sample kernel arch defs <<<"$1"
  local dargs=() d
  for d in $defs; do dargs+=(-D "$d"); done
  local log rc verified=1 st first
  log=$("$cakec" --arch "$arch" "samples/$sample.cake" "${dargs[@]}" -o "$out/$name.cubin" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && echo "$log" | grep -qE '\[E06[0-9]{2}\]' && ! echo "$log" | grep -E 'error: ' | grep -qvE '\[E06[0-9]{2}\]'; then
    log=$("$cakec" --no-verify --arch "$arch" "samples/$sample.cake" "${dargs[@]}" -o "$out/$name.cubin" 2>&1)
    rc=$?
    verified=0
  fi
  if [ $rc -eq 0 ] && [ -s "$out/$name.cubin" ] && [ -s "$out/$name.cubin.json" ]; then
    st=ok; [ $verified = 0 ] && st=ok-unverified
    first=""; [ $verified = 0 ] && first="verifier obligations unproven (E06xx): built with --no-verify"
  elif echo "$log" | grep -qE '\[E0[2-5][0-9]{2}\]'; then
    st=rejected; first=$(echo "$log" | grep -m1 'error' || true)
  else
    st=FAIL; first=$(echo "$log" | grep -m1 -E 'error|E0[0-9]{3}' || echo "$log" | tail -n 1)
  fi
  echo "$log" >"$out/logs/$name.log"
  local defs_json
  defs_json=$(python3 -c 'import json,sys; print(json.dumps({k: int(v) for k, v in (d.split("=") for d in sys.argv[1].split())}))' "$defs")
  python3 -c 'import json,sys; print(json.dumps(dict(zip(["name","sample","kernel","arch","status","detail"], sys.argv[1:7]), defines=json.loads(sys.argv[7]), cubin="bench/out/sweep/%s.cubin" % sys.argv[1])))' \
    "$name" "$sample" "$kernel" "$arch" "$st" "$first" "$defs_json" >"$out/logs/$name.status"
  printf '%-28s %-14s %s\n' "$name" "$st" "${first:0:110}"
}
export -f compile_one
export cakec out

variants | xargs -P "$jobs" -I{} bash -c 'compile_one "$1"' _ {}

python3 - "$out" "$cakec" <<'PY'
import json, os, subprocess, sys
out, cakec = sys.argv[1], sys.argv[2]
rows = []
for f in sorted(os.listdir(os.path.join(out, "logs"))):
    if f.endswith(".status"):
        with open(os.path.join(out, "logs", f)) as fh:
            rows.append(json.loads(fh.read()))
version = subprocess.run([cakec, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[:1]
repo = os.path.dirname(os.path.dirname(os.path.dirname(out)))
commit = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
dirty = bool(subprocess.run(["git", "-C", repo, "status", "--porcelain", "--", "src", "samples", "bench"],
                            capture_output=True, text=True).stdout.strip())
doc = {"format": "cake-sweep-variants", "version": 1, "commit": commit, "dirty": dirty,
       "cakec": version[0] if version else "", "variants": rows}
with open(os.path.join(out, "variants.json"), "w") as fh:
    json.dump(doc, fh, indent=1)
counts = {}
for r in rows:
    counts[r["status"]] = counts.get(r["status"], 0) + 1
print("sweep_build.sh: %d variants -> %s/variants.json (%s)" % (
    len(rows), out, ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))))
sys.exit(1 if counts.get("FAIL") else 0)
PY
