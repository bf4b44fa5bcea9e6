#!/usr/bin/env python3
"""Regenerates the expected-diagnostic comments of verifier tests (tests/lit/verify/*.cake).

usage: utils/verify-expectations.py CAKEC FILE.cake [cakec options...]

Runs `CAKEC --verify-only --diagnostics-format=json FILE` and rewrites the block of expectations at the end
of FILE (everything after the line '// ---- expected diagnostics (utils/verify-expectations.py) ----') with
one `// expected-error@LINE CODE {{message}}` / `// expected-note@LINE {{message}}` per emitted diagnostic
and note, using absolute line numbers (they stay valid because the block is at the end of the file).
Review the regenerated block before committing: the test only protects what you have checked is right.
"""
import json
import subprocess
import sys

MARKER = "// ---- expected diagnostics (utils/verify-expectations.py) ----"


def main():
    cakec, path = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    text = open(path).read()
    if MARKER in text:
        text = text[: text.index(MARKER)].rstrip("\n") + "\n"
    run = subprocess.run([cakec, "--verify-only", "--diagnostics-format=json", *extra, path],
                         capture_output=True, text=True)
    diags = json.loads(run.stdout or "[]")
    lines = [MARKER]
    for d in diags:
        sev = d["severity"]
        where = "@%d" % d["line"] if d.get("line") else "@*"
        lines.append("// expected-%s%s %s {{%s}}" % (sev, where, d["code"], d["message"]))
        for n in d.get("notes", []):
            nwhere = "@%d" % n["line"] if n.get("line") else "@*"
            lines.append("// expected-note%s {{%s}}" % (nwhere, n["message"]))
    open(path, "w").write(text + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
