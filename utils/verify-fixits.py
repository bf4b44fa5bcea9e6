#!/usr/bin/env python3
"""verify-fixits.py: applies the verifier's fix-its to every faulty kernel of the corpus and checks the result.

  utils/verify-fixits.py CAKEC [--min-fixed-rate R] [--json OUT] [FILE.cake ...]   (from the repository root)

The corpus (default): tests/lit/verify/*.cake and bench/faulty/*.cake.  For each file that `cakec --verify-only`
rejects with verifier errors (E06xx), with the -D options of its first RUN line that verifies it (%s), every fix-it of
every error diagnostic (--diagnostics-format json) is applied to a copy of the file; the copy is verified again.
A file is
  fixed      every error carried a fix-it and the edited copy has no verifier error left (E06xx; a corpus file
             written for the verifier alone may still fail a later check, e.g. E0712 on a wgmma descriptor);
  not fixed  every error carried a fix-it, but the edited copy is still rejected (its first error is shown);
  partial    some errors carried fix-its, some only a prose hint (the copy is verified, but not counted);
  hint only  no error carried a fix-it.
Prints one line per file with a fix-it and the totals; the fix-it rate is fixed / (fixed + not fixed).
--min-fixed-rate R: exit 1 when the rate is below R (so a test catches a fix-it that stopped working).
Python 3 standard library only.
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile


def run_options(text):
    """The -D options of the file's first RUN line that verifies the file itself (%s) (none: no such line, or no
    -D)."""
    for line in text.splitlines():
        m = re.search(r"RUN:(.*)", line)
        if not m or "--verify-only" not in m.group(1) or not re.search(r"%s\b", m.group(1)):
            continue
        words = shlex.split(m.group(1).split("|")[0])
        opts = []
        for i, w in enumerate(words):
            if w == "-D" and i + 1 < len(words):
                opts += ["-D", words[i + 1]]
            elif w.startswith("-D") and len(w) > 2:
                opts.append(w)
        return opts
    return []


def diagnostics(cakec, path, opts):
    p = subprocess.run([cakec, path, "--verify-only", "--diagnostics-format", "json"] + opts,
                       capture_output=True, text=True, timeout=300)
    try:
        diags = json.loads(p.stdout) if p.stdout.strip() else []
    except json.JSONDecodeError:
        diags = []
    return p.returncode, [d for d in diags if d.get("severity") == "error"]


def offset_of(lines, line, column):
    return sum(len(l) for l in lines[: line - 1]) + column - 1


def apply_fixits(text, fixits):
    """The text with every fix-it applied (from the last to the first, so offsets stay valid); None when two
    overlap.  Columns count bytes, as cakec's do."""
    data = text.encode()
    lines = data.splitlines(keepends=True)
    edits = sorted({(offset_of(lines, f["line"], f["column"]), offset_of(lines, f["end_line"], f["end_column"]),
                     f["replacement"]) for f in fixits}, reverse=True)
    for (b, _, _), (_, e2, _) in zip(edits, edits[1:]):
        if e2 > b:
            return None
    for b, e, replacement in edits:
        data = data[:b] + replacement.encode() + data[e:]
    return data.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cakec")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--min-fixed-rate", type=float, default=0.0)
    ap.add_argument("--json")
    args = ap.parse_intermixed_args()
    files = args.files or sorted(glob.glob("tests/lit/verify/*.cake")) + sorted(glob.glob("bench/faulty/*.cake"))
    rows = []
    counts = {"fixed": 0, "not fixed": 0, "partial": 0, "hint only": 0}
    for path in files:
        text = open(path).read()
        opts = run_options(text)
        status, errors = diagnostics(args.cakec, path, opts)
        if status == 0 or not any(e["code"].startswith("E06") for e in errors):
            continue
        with_fix = [e for e in errors if e.get("fixits")]
        if not with_fix:
            counts["hint only"] += 1
            rows.append({"file": path, "outcome": "hint only", "codes": [e["code"] for e in errors]})
            continue
        edited = apply_fixits(text, [f for e in with_fix for f in e["fixits"]])
        after = "overlapping fix-its"
        ok = False
        if edited is not None:
            with tempfile.NamedTemporaryFile("w", suffix=".cake", delete=False) as tmp:
                tmp.write(edited)
            try:
                status2, errors2 = diagnostics(args.cakec, tmp.name, opts)
            finally:
                os.unlink(tmp.name)
            left = [e for e in errors2 if e["code"].startswith("E06")]
            ok = status2 == 0 or (errors2 and not left)
            if status2 == 0:
                after = "verifies"
            elif ok:
                after = f"no verifier error left ({errors2[0]['code']} at line {errors2[0]['line']})"
            else:
                first = left[0] if left else (errors2[0] if errors2 else None)
                after = f"{first['code']} at line {first['line']}: {first['message']}" if first else f"exit {status2}"

        outcome = "partial" if len(with_fix) < len(errors) else ("fixed" if ok else "not fixed")
        counts[outcome] += 1
        rows.append({"file": path, "outcome": outcome, "codes": [e["code"] for e in errors],
                     "fixits": [f["replacement"] for e in with_fix for f in e["fixits"]], "after": after})
        print(f"{outcome:9}  {path}  [{', '.join(e['code'] for e in with_fix)}] -> {after}")
    decided = counts["fixed"] + counts["not fixed"]
    rate = counts["fixed"] / decided if decided else 0.0
    total = sum(counts.values())
    print(f"faulty files: {total}; with a fix-it on every error: {decided}, of which verify after applying them: "
          f"{counts['fixed']} ({100 * rate:.0f}%); partial: {counts['partial']}; hint only: {counts['hint only']}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"counts": counts, "rate": rate, "rows": rows}, out, indent=1)
    if rate < args.min_fixed_rate:
        print(f"verify-fixits: fix-it rate {rate:.2f} below --min-fixed-rate {args.min_fixed_rate}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
