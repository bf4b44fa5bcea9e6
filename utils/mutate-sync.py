#!/usr/bin/env python3
"""mutate-sync.py: mutation testing of the cakec verifier on correct kernels.

For every input file (a kernel that verifies clean), this script generates mutants that break its
synchronisation in the ways real kernels get it wrong, runs `cakec --verify-only` on each, and reports how many
the verifier rejects (the kill rate) and which survive.

Mutation operators (each applied at every place it fits, one mutation per mutant):
  drop          delete one synchronisation statement (arrive, wait, sync, syncthreads, fence.*, mbarrier.init,
                wgmma.fence/commit/wait, cp.async.commit/wait, tma.store.commit/wait, cluster.*)
  duplicate     issue such a statement twice
  parity        flip a wait parity:                  parity(P)     -> parity((P) ^ 1)
  arrivals      change an arrival count:             arrivals(n)   -> n + 1, n - 1, 2n
  expect_tx     change an expect_tx byte count:      expect_tx(B)  -> (B) + 1, (B) - 1, (B) * 2
  wait_n        weaken / tighten a group wait:       X.wait N      -> N + 1, N - 1
  move_up/down  swap a synchronisation statement with its neighbouring statement line
  stages        shrink the stage count:              -D S=<default - 1> (when the kernel has a ct param S)

A mutant is
  killed     cakec exits non-zero with a verifier diagnostic (E06xx) or any error after the front end;
  invalid    the front end rejects it (parse / sema errors, E01xx-E04xx): not a verifier test, not counted;
  survived   cakec --verify-only succeeds.
kill rate = killed / (killed + survived).

Usage:
  utils/mutate-sync.py [--cakec PATH] [--min-kill-rate R] [--json OUT] [--timeout S] [-D NAME=VALUE ...] FILE.cake ...
-D NAME=VALUE is passed to every cakec run (the clean baseline and each mutant), e.g. to mutate a variant that
verifies in reasonable time; the stages operator then shrinks the given S instead of the default.
Exit status: 0, or 1 when the kill rate is below --min-kill-rate (so a ctest/lit test catches regressions),
2 on usage errors or when an input does not verify clean before mutation.
Python 3 standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

SYNC_OPS = [
    "mbarrier.init", "mbarrier.expect_tx", "fence.proxy_async", "fence.mbarrier_init",
    "wgmma.fence", "wgmma.commit", "wgmma.wait", "cp.async.commit", "cp.async.wait",
    "tma.store.commit", "tma.store.wait", "cluster.sync", "cluster.arrive", "cluster.wait",
    "syncthreads", "arrive", "wait", "sync",
]
SYNC_LINE = re.compile(r"^\s*(" + "|".join(re.escape(o) for o in SYNC_OPS) + r")\b[^;{}]*;\s*(//.*)?$")
STATEMENT_LINE = re.compile(r"^\s*[^\s/{}][^{}]*;\s*(//.*)?$")   # a one-line statement (no block braces)
WAIT_N = re.compile(r"\b(cp\.async\.wait|wgmma\.wait|tma\.store\.wait)\s+([^;]+);")
CT_S = re.compile(r"\bS\s*=\s*(\d+)")


def balanced_arg(text, start):
    """Index just past the ')' matching the '(' at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def clause_mutants(lines, clause, rewrite):
    """Mutants that rewrite the argument of clause(...) on one line; rewrite(arg) -> [(label, new_arg)]."""
    out = []
    for idx, line in enumerate(lines):
        code = line.split("//", 1)[0]
        for m in re.finditer(r"\b" + clause + r"\(", code):
            open_paren = m.end() - 1
            close = balanced_arg(code, open_paren)
            if close < 0:
                continue
            arg = code[open_paren + 1:close - 1]
            for label, new_arg in rewrite(arg):
                new_line = line[:open_paren + 1] + new_arg + line[close - 1:]
                out.append((label, idx, lines[:idx] + [new_line] + lines[idx + 1:]))
    return out


def generate(text):
    """All mutants of one source: list of (operator, description, line number, new text, extra args)."""
    lines = text.split("\n")
    mutants = []

    def add(op, desc, idx, new_lines, extra=()):
        mutants.append((op, desc, idx + 1, "\n".join(new_lines), list(extra)))

    for idx, line in enumerate(lines):
        m = SYNC_LINE.match(line)
        if not m:
            continue
        stmt = line.strip()
        add("drop", "drop '%s'" % stmt, idx, lines[:idx] + lines[idx + 1:])
        add("duplicate", "duplicate '%s'" % stmt, idx, lines[:idx + 1] + [line] + lines[idx + 1:])
        if idx > 0 and STATEMENT_LINE.match(lines[idx - 1]) and not lines[idx - 1].strip().startswith("//"):
            swapped = lines[:idx - 1] + [line, lines[idx - 1]] + lines[idx + 1:]
            add("move_up", "move '%s' above '%s'" % (stmt, lines[idx - 1].strip()), idx, swapped)
        if idx + 1 < len(lines) and STATEMENT_LINE.match(lines[idx + 1]) and not lines[idx + 1].strip().startswith("//"):
            swapped = lines[:idx] + [lines[idx + 1], line] + lines[idx + 2:]
            add("move_down", "move '%s' below '%s'" % (stmt, lines[idx + 1].strip()), idx, swapped)

    for label, idx, new in clause_mutants(lines, "parity", lambda a: [("parity(%s) -> parity((%s) ^ 1)" % (a, a), "(%s) ^ 1" % a)]):
        add("parity", label, idx, new)

    def count_rewrites(a):
        out = [("arrivals(%s) -> %s" % (a, r), r) for r in ("(%s) + 1" % a, "(%s) * 2" % a)]
        if a.strip() != "1":
            out.append(("arrivals(%s) -> (%s) - 1" % (a, a), "(%s) - 1" % a))
        return out

    for label, idx, new in clause_mutants(lines, "arrivals", count_rewrites):
        add("arrivals", label, idx, new)
    for label, idx, new in clause_mutants(
            lines, "expect_tx",
            lambda a: [("expect_tx(%s) -> %s" % (a, r), r) for r in ("(%s) + 1" % a, "(%s) - 1" % a, "(%s) * 2" % a)]):
        add("expect_tx", label, idx, new)

    for idx, line in enumerate(lines):
        code = line.split("//", 1)[0]
        m = WAIT_N.search(code)
        if not m:
            continue
        n = m.group(2).strip()
        for new_n in ("(%s) + 1" % n, "(%s) - 1" % n):
            if new_n == "(0) - 1":
                continue
            new_line = line[:m.start(2)] + new_n + line[m.end(2):]
            add("wait_n", "%s %s -> %s" % (m.group(1), n, new_n), idx, lines[:idx] + [new_line] + lines[idx + 1:])

    # Stage count: the default of a compile-time parameter named S, shrunk by one (via -D).
    for idx, line in enumerate(lines):
        if re.match(r"^\s*kernel\b", line):
            header = "\n".join(lines[idx:]).split("(", 1)[0]   # kernel NAME<ct params>
            m = CT_S.search(header)
            if m and int(m.group(1)) > 1:
                s = int(m.group(1))
                add("stages", "-D S=%d (default %d)" % (s - 1, s), idx, lines, ["-D", "S=%d" % (s - 1)])
            break
    return mutants


def run_cakec(cakec, path, extra, timeout):
    cmd = [cakec, "--verify-only", "--diagnostics-format=json"] + extra + [path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", []
    codes = []
    try:
        for d in json.loads(proc.stdout or "[]"):
            if d.get("severity") in ("error", "fatal"):
                codes.append(d.get("code", ""))
    except ValueError:
        pass
    if proc.returncode == 0:
        return "survived", codes
    if any(c.startswith("E06") for c in codes):
        return "killed", codes
    if codes and all(c[:3] in ("E01", "E02", "E03", "E04") for c in codes):
        return "invalid", codes
    return "killed", codes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--cakec", default=os.environ.get("CAKEC", "cakec"))
    ap.add_argument("--min-kill-rate", type=float, default=None)
    ap.add_argument("--json", default=None, help="write every mutant's outcome here")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("-D", "--define", action="append", default=[], metavar="NAME=VALUE",
                    help="compile-time parameter override passed to every cakec run (repeatable)")
    args = ap.parse_args()
    defines = {}
    for d in args.define:
        if "=" not in d:
            print("mutate-sync: -D expects NAME=VALUE, got '%s'" % d, file=sys.stderr)
            return 2
        name, value = d.split("=", 1)
        defines[name.strip()] = value.strip()

    def define_args(overrides):
        merged = dict(defines)
        merged.update(overrides)
        out = []
        for name, value in merged.items():
            out += ["-D", "%s=%s" % (name, value)]
        return out

    results = []
    for path in args.files:
        text = open(path, encoding="utf-8").read()
        baseline, codes = run_cakec(args.cakec, path, define_args({}), args.timeout)
        if baseline != "survived":
            print("mutate-sync: %s does not verify clean before mutation (%s)" % (path, " ".join(codes)), file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory() as tmp:
            for n, (op, desc, line, new_text, extra) in enumerate(generate(text)):
                mpath = os.path.join(tmp, "m%d_%s" % (n, os.path.basename(path)))
                with open(mpath, "w", encoding="utf-8") as f:
                    f.write(new_text)
                overrides = {}
                if op == "stages":
                    if "S" in defines:
                        try:
                            s_value = int(defines["S"])
                        except ValueError:
                            continue
                        if s_value <= 1:
                            continue
                        overrides["S"] = str(s_value - 1)
                        desc = "-D S=%d (given %d)" % (s_value - 1, s_value)
                    else:
                        overrides["S"] = extra[1].split("=", 1)[1]
                outcome, codes = run_cakec(args.cakec, mpath, define_args(overrides), args.timeout)
                results.append({"file": path, "operator": op, "mutation": desc, "line": line,
                                "outcome": outcome, "codes": codes})

    killed = sum(r["outcome"] == "killed" for r in results)
    survived = [r for r in results if r["outcome"] in ("survived", "timeout")]
    invalid = sum(r["outcome"] == "invalid" for r in results)
    counted = killed + len(survived)
    rate = killed / counted if counted else 1.0
    print("mutants: %d  killed: %d  survived: %d  invalid (front end): %d  kill rate: %.3f"
          % (len(results), killed, len(survived), invalid, rate))
    for r in survived:
        print("  survivor: %s:%d: [%s] %s%s" % (r["file"], r["line"], r["operator"], r["mutation"],
                                               " (timeout)" if r["outcome"] == "timeout" else ""))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"kill_rate": rate, "mutants": results}, f, indent=1)
    if args.min_kill_rate is not None and rate + 1e-9 < args.min_kill_rate:
        print("mutate-sync: kill rate %.3f is below the required %.3f" % (rate, args.min_kill_rate), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
