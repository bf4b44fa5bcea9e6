#!/usr/bin/env bash
# run-tests.sh BUILD_DIR: runs every test of one build and prints, as its last line, exactly
#   N passed, N failed
# counting each doctest test case, each lit test, and each other ctest test (e.g. ones registered by
# runtime/ or tests/python) as one test.  Exit status 0 iff nothing failed.
#
#   unit   BUILD_DIR/tests/cake_unit_tests (doctest); a crash before its summary counts as one failure
#   lit    the exact lit command CMake wrote to BUILD_DIR/tests/lit-command.txt, results read from --xunit
#   other  ctest -E '^(unit|lit)$', results read from --output-junit
# Unsupported lit tests count as neither; an expected failure (XFAIL) counts as passed.
set -u
build="${1:?usage: run-tests.sh BUILD_DIR}"
build="$(cd "$build" && pwd)" || exit 2
work="$build/test-results"
rm -rf "$work"
mkdir -p "$work"
passed=0
failed=0

add() {   # add PHASE PASSED FAILED
  printf '%-6s %d passed, %d failed\n' "$1:" "$2" "$3"
  passed=$((passed + $2))
  failed=$((failed + $3))
}

# ---- unit tests
unit="$build/tests/cake_unit_tests"
if [ -x "$unit" ]; then
  "$unit" --no-intro=true >"$work/unit.log" 2>&1
  status=$?
  summary=$(grep -E '^\[doctest\] test cases:' "$work/unit.log" | tail -n 1)
  if [ -n "$summary" ]; then
    p=$(sed -E 's/.*\| *([0-9]+) passed.*/\1/' <<<"$summary")
    f=$(sed -E 's/.*\| *([0-9]+) failed.*/\1/' <<<"$summary")
    [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1   # e.g. a sanitizer report at exit
  else
    p=0 f=1
  fi
  if [ "$f" -ne 0 ]; then
    echo "--- unit test failures ($work/unit.log):"
    grep -v -E '^\[doctest\] (doctest version|run with)' "$work/unit.log" | tail -n 60
  fi
  add unit "$p" "$f"
else
  echo "error: $unit not built"
  add unit 0 1
fi

# ---- lit tests
if [ -f "$build/tests/lit-command.txt" ]; then
  mapfile -t litcmd <"$build/tests/lit-command.txt"
  last=$((${#litcmd[@]} - 1))
  "${litcmd[@]:0:$last}" --xunit-xml-output "$work/lit.xml" "${litcmd[$last]}" >"$work/lit.log" 2>&1
  counts=$(python3 - "$work/lit.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 1"); sys.exit()
p = f = 0
for case in root.iter("testcase"):
    if case.find("skipped") is not None: continue
    if case.find("failure") is not None or case.find("error") is not None: f += 1
    else: p += 1
print(p, f)
EOF
)
  read -r p f <<<"$counts"
  if [ "$f" -ne 0 ]; then
    echo "--- lit failures ($work/lit.log):"
    grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT):' "$work/lit.log" | sort | uniq
    grep -E -A40 '^[*]+ TEST .* FAILED' "$work/lit.log" | head -n 150
  fi
  add lit "$p" "$f"
else
  echo "error: lit suite not configured (no $build/tests/lit-command.txt; install llvm-14-tools)"
  add lit 0 1
fi

# ---- any other ctest tests
if ctest --test-dir "$build" -N -E '^(unit|lit)$' 2>/dev/null | grep -q 'Test *#'; then
  ctest --test-dir "$build" -E '^(unit|lit)$' --output-junit "$work/ctest.xml" >"$work/ctest.log" 2>&1
  counts=$(python3 - "$work/ctest.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 1"); sys.exit()
p = f = 0
for case in root.iter("testcase"):
    status = case.get("status", "")
    if status in ("run", "passed"): p += 1
    elif status == "disabled": pass
    else: f += 1
print(p, f)
EOF
)
  read -r p f <<<"$counts"
  if [ "$f" -ne 0 ]; then
    echo "--- other ctest failures ($work/ctest.log): the last lines of each failed test's output"
    python3 - "$work/ctest.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if case.get("status", "") in ("run", "passed", "disabled"):
        continue
    out = case.findtext("system-out") or ""
    print(f"=== {case.get('name')} ({case.get('status')}, {case.get('time')} s)")
    print("\n".join(out.rstrip().splitlines()[-60:]))
EOF
  fi
  add other "$p" "$f"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
