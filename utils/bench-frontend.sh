#!/usr/bin/env bash
# Front-end speed benchmark: times `cakec --verify-only` on a generated ~50,000-line CAKE file.
#
#   utils/bench-frontend.sh [build-dir] [lines]      (defaults: build, 50000)
#
# Generates the input with utils/gen_big_cake.py into a temporary directory, checks that cakec accepts it
# (exit 0), then reports the median wall time of 5 runs: with hyperfine when it is installed, otherwise with
# a small Python timer (after one warm-up run in both cases).  The result is recorded in
# docs/frontend-performance.md; the target is < 1 s.  Use a Release or RelWithDebInfo build for figures.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
lines="${2:-50000}"
cakec="$build/cakec"
if [ ! -x "$cakec" ]; then
  echo "bench-frontend: $cakec not found (build first, or pass the build directory)" >&2
  exit 2
fi

tmp="$(mktemp -d -t cake-bench.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
input="$tmp/big.cake"
python3 "$root/utils/gen_big_cake.py" --lines "$lines" -o "$input"
echo "input: $(wc -l < "$input") lines, $(grep -c '^kernel' "$input") kernels, $(wc -c < "$input") bytes"

if ! "$cakec" "$input" --verify-only >"$tmp/out.txt" 2>&1; then
  echo "bench-frontend: cakec --verify-only rejected the generated file:" >&2
  head -40 "$tmp/out.txt" >&2
  exit 1
fi

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine --warmup 1 --runs 5 --export-json "$tmp/h.json" "$cakec $input --verify-only" >&2
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print("median %.3f s (min %.3f, max %.3f) over %d runs, hyperfine" % (r["median"], r["min"], r["max"], len(r["times"])))' "$tmp/h.json"
else
  python3 - "$cakec" "$input" <<'PY'
import statistics, subprocess, sys, time
cmd = [sys.argv[1], sys.argv[2], "--verify-only"]
subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)   # warm-up
times = []
for _ in range(5):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - start)
print("median %.3f s (min %.3f, max %.3f) over %d runs, python timer" %
      (statistics.median(times), min(times), max(times), len(times)))
PY
fi
