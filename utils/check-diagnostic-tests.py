#!/usr/bin/env python3
"""check-diagnostic-tests.py [SOURCE_ROOT]: every diagnostic code declared in
src/support/DiagnosticKinds.def must have a test file tests/lit/diagnostics/<CODE>_<name>.cake that mentions
the code, and every file there must be named after a declared code.  Prints the gaps; exit 1 if any."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
with open(os.path.join(root, "src", "support", "DiagnosticKinds.def"), encoding="utf-8") as f:
    codes = re.findall(r'^\s*DIAG\(\s*\w+\s*,\s*"(E\d{4})"', f.read(), re.M)
test_dir = os.path.join(root, "tests", "lit", "diagnostics")
tests = sorted(n for n in os.listdir(test_dir) if n.endswith(".cake")) if os.path.isdir(test_dir) else []

problems = []
for code in codes:
    mine = [n for n in tests if n.startswith(code + "_")]
    if not mine:
        problems.append("%s: no test file tests/lit/diagnostics/%s_<name>.cake" % (code, code))
        continue
    if not any(code in open(os.path.join(test_dir, n), encoding="utf-8", errors="replace").read() for n in mine):
        problems.append("%s: %s never mentions the code" % (code, ", ".join(mine)))
for name in tests:
    if not re.match(r"E\d{4}_\w+\.cake$", name) or name[:5] not in codes:
        problems.append("%s: not named <CODE>_<name>.cake after a declared code" % name)

for p in problems:
    print(p)
print("%d codes, %d test files, %d problems" % (len(codes), len(tests), len(problems)))
sys.exit(1 if problems else 0)
