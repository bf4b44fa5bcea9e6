#!/usr/bin/env bash
# Fuzz CAKE with libFuzzer: the front end, the verifier, the cost model and the runtime's manifest reader.
#
#   utils/fuzz.sh [seconds] [target ...]     (default: 60 seconds for each of: frontend verify cost manifest)
#
# Builds tests/fuzz's cake_fuzz_<target> in build-fuzz with clang-14 (ASan + UBSan + libFuzzer) and runs each
# target in turn for the given time, seeded with a temporary corpus (copied, never
# written into the repo; tests/fuzz/README.md says what goes into each):
#   frontend, verify, cost   every .cake file under samples/, tests/ and bench/, with tests/fuzz/cake.dict
#   manifest                 tests/fuzz/corpus/manifest/*.json, with tests/fuzz/manifest.dict
# Time limit per input (-timeout): 5 s for frontend and manifest; 30 s for verify and 20 s for cost, whose
# inputs run the whole front end and then Z3 or the work counting under the sanitizers' 3-5x slowdown (the
# native budget is 5 s per input).  Crash reproducers go to $CAKE_FUZZ_ARTIFACTS/<target>/ (default /tmp/fuzz-crashes/).  Each target's figures
# (executions, coverage, corpus size) are printed as one "fuzz: <target>: ..." line.  Exits non-zero when any
# target found a crash, timeout or leak.
# Environment: CAKE_FUZZ_JOBS=N runs N fuzzing processes per target in parallel (default 1);
# CAKE_FUZZ_CORPUS_DIR=DIR keeps each target's grown corpus in DIR/<target>/ (default: a temporary folder).
# CAKE_FUZZ_TIMEOUT=S sets the per-input limit for every target (libFuzzer's -timeout counts wall-clock time:
# a run under nice on a busy machine needs more).
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [seconds] [frontend|verify|cost|manifest ...]" >&2
  exit 2
fi
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(frontend verify cost manifest); fi
for t in "${targets[@]}"; do
  case "$t" in frontend|verify|cost|manifest) ;; *) echo "fuzz: unknown target '$t'" >&2; exit 2 ;; esac
done

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
artifacts="${CAKE_FUZZ_ARTIFACTS:-/tmp/fuzz-crashes}"
jobs="${CAKE_FUZZ_JOBS:-1}"

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAKE_FUZZ=ON >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=("cake_fuzz_$t"); done
cmake --build "$build" --target "${build_targets[@]}" -j 2

scratch="$(mktemp -d -t cake-fuzz.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT

# seed_corpus TARGET DIR: copies the target's seeds into DIR, named by content hash so that files with equal
# names in different folders do not collide.
seed_corpus() {
  local target="$1" dir="$2" f
  mkdir -p "$dir"
  if [ "$target" = manifest ]; then
    find "$root/tests/fuzz/corpus/manifest" -name '*.json' -type f -print0
  else
    find "$root/samples" "$root/tests" "$root/bench" -name '*.cake' -type f -print0 2>/dev/null
  fi | while IFS= read -r -d '' f; do
    cp "$f" "$dir/$(sha1sum "$f" | cut -c1-16).${f##*.}"
  done
}

failed=0
for t in "${targets[@]}"; do
  if [ -n "${CAKE_FUZZ_CORPUS_DIR:-}" ]; then corpus="$CAKE_FUZZ_CORPUS_DIR/$t"; else corpus="$scratch/corpus-$t"; fi
  seed_corpus "$t" "$corpus"
  dict="$root/tests/fuzz/cake.dict"
  [ "$t" = manifest ] && dict="$root/tests/fuzz/manifest.dict"
  mkdir -p "$artifacts/$t" "$scratch/work-$t"
  case "$t" in verify) per_input=30 ;; cost) per_input=20 ;; *) per_input=5 ;; esac
  per_input="${CAKE_FUZZ_TIMEOUT:-$per_input}"
  echo "fuzz: $t: seeded $(ls "$corpus" | wc -l) inputs; running ${seconds}s, ${per_input}s per input; reproducers -> $artifacts/$t/"
  parallel=()
  if [ "$jobs" -gt 1 ]; then parallel=(-jobs="$jobs" -workers="$jobs"); fi
  log="$scratch/work-$t/fuzz.log"
  status=0
  # libFuzzer writes fuzz-N.log files into the working directory with -jobs.
  (cd "$scratch/work-$t" && "$build/tests/fuzz/cake_fuzz_$t" "$corpus" -dict="$dict" \
      -max_total_time="$seconds" -max_len=65536 -timeout="$per_input" -rss_limit_mb=4096 \
      "${parallel[@]}" -print_final_stats=1 -artifact_prefix="$artifacts/$t/") >"$log" 2>&1 || status=$?
  cat "$scratch/work-$t"/fuzz-*.log >>"$log" 2>/dev/null || true
  runs=$({ grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" || true; } | awk '{s += $2} END {print s + 0}')
  cov=$({ grep -o 'cov: [0-9]*' "$log" || true; } | tail -n 1 | awk '{print $2 + 0}')
  ft=$({ grep -o 'ft: [0-9]*' "$log" || true; } | tail -n 1 | awk '{print $2 + 0}')
  units=$(ls "$corpus" | wc -l)
  if [ "$status" -ne 0 ]; then
    failed=1
    echo "fuzz: $t: FAILED (exit $status) after ${runs} runs; last lines of its log:" >&2
    grep -v '^#' "$log" | tail -n 30 >&2
    echo "fuzz: $t: reproducers in $artifacts/$t/: $(ls -1t "$artifacts/$t" | head -5 | tr '\n' ' ')" >&2
    echo "reproduce with: $build/tests/fuzz/cake_fuzz_$t $artifacts/$t/<file>" >&2
  else
    echo "fuzz: $t: no crash in ${seconds}s: ${runs} runs, cov ${cov:-0}, ft ${ft:-0}, corpus ${units} inputs"
  fi
done
exit "$failed"
