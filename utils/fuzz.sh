#!/usr/bin/env bash
# Fuzz the CAKE front end (lex + parse + sema + printer round trip) with libFuzzer.
#
#   utils/fuzz.sh [seconds]          (default 60)
#
# Builds tests/fuzz's cake_fuzz_frontend in build-fuzz with clang-14 (ASan + UBSan + libFuzzer), seeds a
# temporary corpus with every .cake file under samples/ and tests/ (copied, never written into the repo),
# and runs it for the given time with -max_len=65536 and -timeout=5 per input.  Crash reproducers go to
# $CAKE_FUZZ_ARTIFACTS (default /tmp/fuzz-crashes/).  Exits non-zero when a crash, timeout or leak is found.
# Environment: CAKE_FUZZ_JOBS=N runs N fuzzing processes in parallel (default 1).
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [seconds]" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
artifacts="${CAKE_FUZZ_ARTIFACTS:-/tmp/fuzz-crashes}"
jobs="${CAKE_FUZZ_JOBS:-1}"

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAKE_FUZZ=ON >/dev/null
cmake --build "$build" --target cake_fuzz_frontend -j 2

corpus="$(mktemp -d -t cake-fuzz-corpus.XXXXXX)"
workdir="$(mktemp -d -t cake-fuzz-work.XXXXXX)"
trap 'rm -rf "$corpus" "$workdir"' EXIT
# Name the copies by content hash so that files with equal names in different folders do not collide.
while IFS= read -r -d '' f; do
  cp "$f" "$corpus/$(sha1sum "$f" | cut -c1-16).cake"
done < <(find "$root/samples" "$root/tests" -name '*.cake' -type f -print0 2>/dev/null)
echo "fuzz: seeded $(ls "$corpus" | wc -l) inputs; running ${seconds}s; reproducers -> $artifacts/"

mkdir -p "$artifacts"
parallel=()
if [ "$jobs" -gt 1 ]; then
  parallel=(-jobs="$jobs" -workers="$jobs")
  cd "$workdir"   # libFuzzer writes fuzz-N.log files into the working directory in this mode
fi
status=0
"$build/tests/fuzz/cake_fuzz_frontend" "$corpus" \
  -dict="$root/tests/fuzz/cake.dict" \
  -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=4096 \
  "${parallel[@]}" -print_final_stats=1 \
  -artifact_prefix="$artifacts/" || status=$?

if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit $status); reproducers in $artifacts/:" >&2
  ls -1t "$artifacts" | head -20 >&2
  echo "reproduce with: $build/tests/fuzz/cake_fuzz_frontend $artifacts/<file>" >&2
  exit 1
fi
echo "fuzz: no crash in ${seconds}s"
