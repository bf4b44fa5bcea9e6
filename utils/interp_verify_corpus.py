#!/usr/bin/env python3
"""Runs the verifier's corpus through the interpreter's schedule explorer (`cakec run --schedules N`).

  utils/interp_verify_corpus.py CAKEC [--schedules 1000] [--faulty-schedules N] [--timeout 900] [--jobs 1]
                                      [--num-sms 8] [--shape M=..,N=..] [--json OUT.json] [--filter REGEX]
                                      (from the repository root)

The corpus:
  tests/lit/verify/*.cake  every kernel of every file whose RUN line verifies it (-D options taken from that
                           line).  A kernel is *faulty* when its file's expected-error comments lie inside it
                           (the verifier must reject it), or its file is one kernel that a RUN line expects
                           `cakec --verify-only` (with --rules, if any) to reject at its defaults; a clean kernel is a *fixed twin* when it has a faulty
                           counterpart (a faulty file names it "fixed twin: Y.cake", X_fixed.cake next to
                           X.cake, or a faulty kernel in the same file), else an *accepted* kernel (one the
                           verifier accepts, with no faulty twin).
  bench/faulty/*.cake      samples with one planted bug (faulty); the sample named by the `// FROM:` line is
                           the fixed twin (as is a sample that a faulty tests/lit/verify file's header names:
                           "Derived from samples/X.cake").
Each kernel runs once under `cakec run --shape-auto --schedules N --seed 1 --num-sms M` (N: --schedules for
fixed twins and accepted kernels, --faulty-schedules for faulty ones; zero-filled inputs;
every shape variable the first of 256, 128, 64, ... that satisfies requires(..)); the explorer stops at the
first schedule that fails.  Outcomes: exposed (a run-time diagnostic E09xx other than E0903 / E0906-E0909,
or the E0915 warning), clean (all N schedules ran without either), not run (a construct the interpreter
refuses, no shape, the step limit, the timeout, or a kernel `cakec run` rejects before running it: a static
limit sema checks, such as the shared-memory size).

Prints a markdown table and the fractions on stdout, one line per kernel on stderr as it finishes; --json
writes every row (command, outcome, codes, schedules run, seconds, the first error line).
"""
import argparse
import concurrent.futures
import json
import re
import subprocess
import sys
import time
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


def corpus():
    """Every case: dict(file, kernel, kind, twin_of, defines)."""
    cases = []
    verify = sorted(Path("tests/lit/verify").glob("*.cake"))
    names = {p.stem for p in verify}
    named_twins = {}   # a faulty file's "(fixed twin: Y.cake)" comment
    for path in verify:
        for m in re.finditer(r"fixed twin: (\w+)\.cake", path.read_text()):
            named_twins.setdefault(m.group(1), []).append(path.name)
    for path in verify:
        text = path.read_text()
        run = next((l for l in text.splitlines() if "RUN:" in l and "--verify-only" in l and "%s" in l), None)
        if run is None:
            continue
        defines = re.findall(r"-D\s*(\w+=\S+)", run)
        # A RUN line that expects the verifier (with --rules, if any) to reject the file at its defaults.
        commands = [l.split("RUN:", 1)[1].split("|")[0] for l in text.splitlines() if "RUN:" in l]
        rejected = any("%expect-exit 1 %cakec" in c and "--verify-only" in c and re.search(r"%s\b", c) and "-D" not in c
                       and "--verify-timeout" not in c for c in commands)
        kernels, lines = kernels_of(text)
        rows = []
        for name, first, last in kernels:
            # expected-error comments name the line they expect (@LINE or @+N) or sit on it; count those inside.
            faulty = any("expected-error" in lines[i] for i in range(first, last + 1))
            if len(kernels) == 1:
                faulty = "expected-error" in text or rejected
            rows.append({"file": str(path), "kernel": name, "kind": "faulty" if faulty else "accepted", "twin_of": None,
                         "defines": defines})
        faulty_here = [r for r in rows if r["kind"] == "faulty"]
        for r in rows:
            if r["kind"] != "accepted":
                continue
            if path.stem in named_twins:
                r["kind"], r["twin_of"] = "twin", ", ".join(named_twins[path.stem])
            elif path.stem.endswith("_fixed") and path.stem[: -len("_fixed")] in names:
                r["kind"], r["twin_of"] = "twin", "tests/lit/verify/%s.cake" % path.stem[: -len("_fixed")]
            elif faulty_here:
                r["kind"], r["twin_of"] = "twin", "%s:%s" % (path.name, faulty_here[0]["kernel"])
        cases += rows
    twins = {}   # sample -> the faulty files derived from it
    for path in verify:   # a faulty file whose header comment names the sample it derives from
        text = path.read_text()
        header = "\n".join(l for l in text[: text.find("\ntarget ")].splitlines() if "RUN:" not in l)
        if any(c["file"] == str(path) and c["kind"] == "faulty" for c in cases):
            for sample in sorted(set(re.findall(r"samples/\w+\.cake", header))):
                twins.setdefault(sample, []).append(str(path))
    for path in sorted(Path("bench/faulty").glob("*.cake")):
        text = path.read_text()
        sample = re.search(r"^// FROM: (samples/\w+\.cake)", text, re.M).group(1)
        kernels, _ = kernels_of(text)
        for name, _, _ in kernels:
            cases.append({"file": str(path), "kernel": name, "kind": "faulty", "twin_of": None, "defines": []})
        twins.setdefault(sample, []).append(str(path))
    for sample, faulty in sorted(twins.items()):
        kernels, _ = kernels_of(Path(sample).read_text())
        for name, _, _ in kernels:
            cases.append({"file": sample, "kernel": name, "kind": "twin", "twin_of": ", ".join(faulty), "defines": []})
    return cases


def run_case(case, args):
    schedules = args.faulty_schedules if case["kind"] == "faulty" else args.schedules
    cmd = [args.cakec, "run", case["file"], "--kernel", case["kernel"], "--shape-auto", "--schedules", str(schedules),
           "--seed", "1", "--num-sms", str(args.num_sms), "--max-steps", "20000000"]
    for d in case["defines"]:
        cmd += ["-D", d]
    if args.shape:
        cmd += ["--shape", args.shape]
    row = dict(case, command=" ".join(cmd), codes=[], schedules=0, first_error="")
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        row["codes"] = sorted(set(re.findall(r"\[(E09\d\d)\]", p.stderr)))
        errors = [l for l in p.stderr.splitlines() if ": error: " in l or ": warning: " in l]
        row["first_error"] = errors[0] if errors else ""
        done = re.search(r"; (\d+) schedules \(--seed", p.stderr)
        failed = re.search(r": schedule (\d+) of \d+ \(--seed \d+\) failed", p.stderr)
        row["schedules"] = int(done.group(1)) if done else int(failed.group(1)) if failed else 1
        if p.returncode not in (0, 1):
            row["outcome"], row["codes"] = "not run", row["codes"] or ["exit %d" % p.returncode]
        elif p.returncode == 1 and not row["codes"]:   # refused before running (sema: a static limit)
            row["outcome"], row["codes"] = "not run", sorted(set(re.findall(r"\[(E\d{4})\]", p.stderr))) or ["exit 1"]
        elif any(c in NOT_RUN for c in row["codes"]):
            row["outcome"] = "not run"
        elif row["codes"]:
            row["outcome"] = "exposed"
        else:
            row["outcome"] = "clean"
    except subprocess.TimeoutExpired:
        row["outcome"], row["codes"] = "not run", ["timeout %ds" % args.timeout]
    row["seconds"] = round(time.monotonic() - t0, 1)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cakec")
    ap.add_argument("--schedules", type=int, default=1000, help="per fixed twin and accepted kernel")
    ap.add_argument("--faulty-schedules", type=int, help="per faulty kernel (default: --schedules)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per kernel")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--num-sms", type=int, default=8, help="num_sms of persistent grids (few blocks: fast schedules)")
    ap.add_argument("--shape", help="shape variables to fix (e.g. M=512,N=512,K=256; --shape-auto gives the rest)")
    ap.add_argument("--json", help="write every row here")
    ap.add_argument("--filter", default="", help="only files whose path matches this regex")
    args = ap.parse_args()
    if args.faulty_schedules is None:
        args.faulty_schedules = args.schedules
    cases = [c for c in corpus() if re.search(args.filter, c["file"])]
    rows = [None] * len(cases)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # The clean kernels first: they run every schedule, so the long runs start early (the table keeps
        # the corpus order).
        order = sorted(range(len(cases)), key=lambda i: cases[i]["kind"] == "faulty")
        futures = {pool.submit(run_case, cases[i], args): i for i in order}
        for f in concurrent.futures.as_completed(futures):
            r = rows[futures[f]] = f.result()
            print("%-60s %-26s %-8s %-8s %5d %7.1fs %s" % (r["file"], r["kernel"], r["kind"], r["outcome"], r["schedules"],
                                                          r["seconds"], " ".join(r["codes"])), file=sys.stderr, flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")

    def frac(kind, outcome):
        ran = [r for r in rows if r["kind"] == kind and r["outcome"] != "not run"]
        return "%d / %d" % (sum(r["outcome"] == outcome for r in ran), len(ran))

    print("Schedules per kernel: %d (fixed twins, accepted kernels), %d (faulty kernels; the explorer stops at the first "
          "that fails).\n" % (args.schedules, args.faulty_schedules))
    print("| file | kernel | verifier | twin of | interpreter | schedules | codes | s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %s | %d | %s | %.1f |" % (r["file"], r["kernel"], r["kind"], r["twin_of"] or "", r["outcome"],
                                                           r["schedules"], " ".join(r["codes"]), r["seconds"]))
    print()
    print("- faulty kernels exposed: %s (of those the interpreter ran)" % frac("faulty", "exposed"))
    print("- fixed twins clean under all %d schedules: %s" % (args.schedules, frac("twin", "clean")))
    print("- accepted kernels (no faulty twin) clean under all %d schedules: %s" % (args.schedules, frac("accepted", "clean")))
    missed = [r for r in rows if r["kind"] != "faulty" and r["outcome"] == "exposed"]
    print("- kernels the verifier accepts that the explorer exposed: %d%s" % (
        len(missed), "".join("\n  - %s %s: %s" % (r["file"], r["kernel"], r["first_error"]) for r in missed)))
    for kind in ("faulty", "twin", "accepted"):
        nr = [r for r in rows if r["kind"] == kind and r["outcome"] == "not run"]
        print("- %s kernels not run: %d of %d%s" % (kind, len(nr), sum(r["kind"] == kind for r in rows),
                                                   " (" + ", ".join(sorted({c for r in nr for c in r["codes"]})) + ")" if nr else ""))


if __name__ == "__main__":
    main()
