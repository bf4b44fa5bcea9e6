#!/usr/bin/env python3
"""Runs the verifier's corpus (tests/lit/verify) through the interpreter's schedule explorer.

  utils/interp_verify_corpus.py CAKEC SCHEDULES [TIMEOUT_S]   (from the repository root)

Each kernel of each file runs under `cakec run --shape-auto --schedules SCHEDULES --seed 1` (zero-filled
inputs, shape variables from --shape-auto, the -D options of the file's --verify-only RUN line).  A kernel
is *faulty* when its file's expected-error comments lie inside it (the verifier must reject it), else a
*clean* one (a fixed twin or a kernel the verifier accepts).  Outcomes: exposed (a run-time diagnostic
E09xx other than E0903 / E0906-E0909, or the E0915 warning), clean (every schedule ran without either),
not run (the interpreter refused the construct, found no shape, ran past the step limit or the timeout).
Prints one line per kernel and the fractions; the table goes to stdout as markdown.
"""
import re
import subprocess
import sys
from pathlib import Path

NOT_RUN = {"E0903", "E0906", "E0907", "E0908", "E0909"}


def kernels_of(text):
    """(name, first line, last line) of every kernel in the file."""
    lines = text.splitlines()
    starts = [(i, m.group(1)) for i, l in enumerate(lines) for m in [re.match(r"\s*kernel\s+(\w+)", l)] if m]
    out = []
    for n, (i, name) in enumerate(starts):
        end = starts[n + 1][0] - 1 if n + 1 < len(starts) else len(lines) - 1
        out.append((name, i, end))
    return out, lines


def main(argv):
    cakec, schedules = argv[1], int(argv[2])
    timeout = float(argv[3]) if len(argv) > 3 else 60
    rows = []
    for path in sorted(Path("tests/lit/verify").glob("*.cake")):
        text = path.read_text()
        run = next((l for l in text.splitlines() if "RUN:" in l and "--verify-only" in l and "%s" in l), None)
        if run is None:
            continue
        defines = re.findall(r"-D\s*(\w+=\S+)", run)
        kernels, lines = kernels_of(text)
        for name, first, last in kernels:
            # expected-error comments name the line they expect (@LINE or @+N) or sit on it; count those inside.
            faulty = any("expected-error" in lines[i] for i in range(first, last + 1))
            if len(kernels) == 1:
                faulty = "expected-error" in text
            cmd = [cakec, "run", str(path), "--kernel", name, "--shape-auto", "--schedules", str(schedules), "--seed", "1",
                   "--max-steps", "20000000"]
            for d in defines:
                cmd += ["-D", d]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
                codes = sorted(set(re.findall(r"\[(E09\d\d)\]", p.stderr)))
                if p.returncode not in (0, 1):
                    outcome, codes = "not run", codes or ["exit %d" % p.returncode]
                elif any(c in NOT_RUN for c in codes):
                    outcome = "not run"
                elif codes:
                    outcome = "exposed"
                else:
                    outcome = "clean"
            except subprocess.TimeoutExpired:
                outcome, codes = "not run", ["timeout"]
            rows.append((path.name, name, "faulty" if faulty else "clean", outcome, " ".join(codes)))
            print("%-55s %-28s %-7s %-8s %s" % rows[-1], file=sys.stderr, flush=True)

    def frac(kind, outcome):
        ran = [r for r in rows if r[2] == kind and r[3] != "not run"]
        hit = [r for r in ran if r[3] == outcome]
        return "%d / %d" % (len(hit), len(ran))

    print("| file | kernel | verifier | interpreter (%d schedules) | codes |" % schedules)
    print("|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s |" % r)
    print()
    print("- faulty kernels exposed: %s (of those the interpreter ran)" % frac("faulty", "exposed"))
    print("- clean kernels (fixed twins and accepted kernels) clean under every schedule: %s" % frac("clean", "clean"))
    print("- not run: %d of %d" % (sum(r[3] == "not run" for r in rows), len(rows)))


if __name__ == "__main__":
    main(sys.argv)
