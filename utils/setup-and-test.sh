#!/usr/bin/env bash
# setup-and-test.sh: on a fresh Debian machine, install what is missing, then run the whole test suite:
#   1. build/        unit + lit tests                                 (utils/run-tests.sh)
#   2. build-asan/   the same tests built with ASan + UBSan           (CAKE_SANITIZE=ON)
#   3. build-fuzz/   bounded libFuzzer runs of the front end, verifier, cost model and manifest reader
#                    (utils/fuzz.sh: CAKE_FUZZ=ON, clang-14; only when tests/fuzz exists), one test per target
# The last line is exactly "N passed, N failed" summed over all of them; exit status 0 iff nothing failed.
# Environment: CAKE_WERROR=ON (warnings are errors; .ci/run sets it), CAKE_FUZZ_SECONDS (default 60),
# CAKE_SKIP_ASAN=1 / CAKE_SKIP_FUZZ=1 to leave a phase out, CAKE_JOBS.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$CAKE_ROOT"

cake_install_deps || exit $?
passed=0
failed=0
count_last_line() {   # adds the "N passed, N failed" last line of file $1
  local line p f
  line=$(tail -n 1 "$1")
  if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]}
  else
    p=0 f=1
  fi
  passed=$((passed + p))
  failed=$((failed + f))
}

# ---- 1. regular build
cake_say "build/: building (CAKE_WERROR=${CAKE_WERROR:-OFF})"
if cake_build build; then
  cake_say "build/: unit + lit tests"
  ./utils/run-tests.sh build | tee build/run-tests.log
  count_last_line build/run-tests.log
else
  failed=$((failed + 1))
fi

# ---- 2. sanitizers
if [ "${CAKE_SKIP_ASAN:-0}" != 1 ]; then
  cake_say "build-asan/: building with ASan + UBSan"
  if cake_build build-asan -DCAKE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug; then
    cake_say "build-asan/: unit + lit tests under ASan + UBSan"
    ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=86" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
      ./utils/run-tests.sh build-asan | tee build-asan/run-tests.log
    count_last_line build-asan/run-tests.log
  else
    failed=$((failed + 1))
  fi
fi

# ---- 3. fuzzing (bounded), through the fuzz targets' own script: each target (front end, verifier, cost
#      model, manifest reader) runs CAKE_FUZZ_SECONDS (default 60) and counts as one test
if [ "${CAKE_SKIP_FUZZ:-0}" != 1 ] && [ -f tests/fuzz/CMakeLists.txt ] && [ -x utils/fuzz.sh ]; then
  cake_say "build-fuzz/: libFuzzer runs of every target for ${CAKE_FUZZ_SECONDS:-60}s each (log: build-fuzz/fuzz-run.log)"
  mkdir -p build-fuzz
  fuzz_status=0
  CAKE_FUZZ_ARTIFACTS="$CAKE_ROOT/build-fuzz/crashes" ./utils/fuzz.sh "${CAKE_FUZZ_SECONDS:-60}" \
    >build-fuzz/fuzz-run.log 2>&1 || fuzz_status=$?
  fuzz_passed=$(grep -c '^fuzz: [a-z]*: no crash' build-fuzz/fuzz-run.log || true)
  fuzz_failed=$(grep -c '^fuzz: [a-z]*: FAILED' build-fuzz/fuzz-run.log || true)
  if [ "$fuzz_status" -ne 0 ] && [ "$fuzz_failed" -eq 0 ]; then fuzz_failed=1; fi   # did not get to run
  grep '^fuzz: [a-z]*: \(no crash\|FAILED\)' build-fuzz/fuzz-run.log || true
  echo "fuzz:  $fuzz_passed passed, $fuzz_failed failed"
  if [ "$fuzz_failed" -ne 0 ]; then
    echo "last lines of build-fuzz/fuzz-run.log:"
    tail -n 40 build-fuzz/fuzz-run.log
  fi
  passed=$((passed + fuzz_passed))
  failed=$((failed + fuzz_failed))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
