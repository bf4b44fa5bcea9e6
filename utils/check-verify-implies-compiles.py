#!/usr/bin/env python3
"""check-verify-implies-compiles.py CAKEC SOURCE_ROOT [--ptxas PATH] [--jobs N]

Every .cake file under tests/ and samples/ that passes `cakec --verify-only` must also compile: with ptxas
(`cakec FILE -o X.cubin`, which runs ptxas on the generated PTX) when one is found, else to PTX
(`cakec FILE --emit=ptx -o X.ptx`).

Each file is tried in its default configuration and in every configuration its RUN lines give cakec
(the -D NAME=VALUE and --arch values of one RUN line).  A file that verifies but is meant not to compile
(a ptxas or environment test) says so on a line of its own:
    // verify-passes-compile-fails: REASON
and is then required to fail the compile step (so the note cannot go stale).

Prints one line per problem and a summary; exit status 1 if there is a problem."""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ANNOTATION = "// verify-passes-compile-fails:"


def configurations(text):
    """The default configuration plus the (-D, --arch) arguments of each RUN line that runs cakec."""
    configs = [()]
    for line in text.splitlines():
        m = re.match(r"\s*//\s*RUN:(.*)", line)
        if not m or "%cakec" not in m.group(1):
            continue
        args = []
        toks = m.group(1).split()
        i = 0
        while i < len(toks):
            t = toks[i]
            if t == "-D" and i + 1 < len(toks):
                args += ["-D", toks[i + 1]]
                i += 1
            elif t.startswith("-D") and len(t) > 2:
                args += ["-D", t[2:]]
            elif t == "--arch" and i + 1 < len(toks):
                args += ["--arch", toks[i + 1]]
                i += 1
            elif t.startswith("--arch="):
                args += ["--arch", t[len("--arch="):]]
            i += 1
        cfg = tuple(args)
        if cfg not in configs:
            configs.append(cfg)
    return configs


# Some solver searches (e.g. tests/lit/verify/cp_async_shape_search_timeout.cake at the default --verify-timeout)
# take from seconds to minutes depending on the process's address layout; a file that has not verified within
# this wall-clock limit is treated as not verified.
VERIFY_WALL_LIMIT_S = 120


def check(cakec, ptxas, path, scratch):
    """A list of problem strings for one file, and the number of configurations that verified."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    meant_to_fail = re.search(r"^\s*" + re.escape(ANNOTATION), text, re.M) is not None
    problems = []
    verified = 0
    failed_compile = False
    for cfg in configurations(text):
        try:
            v = subprocess.run([cakec, path, "--verify-only", *cfg], capture_output=True, text=True,
                               timeout=VERIFY_WALL_LIMIT_S)
        except subprocess.TimeoutExpired:
            continue   # not verified within the limit: nothing to check (the file's own RUN lines judge it)
        if v.returncode != 0:
            continue
        verified += 1
        base = os.path.join(scratch, re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.relpath(path)) + str(len(cfg)))
        # The proofs just passed: --no-verify keeps the compile step to code generation (+ ptxas).
        if ptxas:
            cmd = [cakec, path, *cfg, "--no-verify", "--ptxas", ptxas, "-o", base + ".cubin"]
        else:
            cmd = [cakec, path, *cfg, "--no-verify", "--emit=ptx", "-o", base + ".ptx"]
        c = subprocess.run(cmd, capture_output=True, text=True)
        label = path + (" " + " ".join(cfg) if cfg else "")
        if c.returncode != 0:
            failed_compile = True
            if not meant_to_fail:
                first = (c.stderr.strip().splitlines() or ["(no message)"])[0]
                problems.append("%s: passes --verify-only but does not compile: %s" % (label, first))
    if meant_to_fail and verified and not failed_compile:
        problems.append("%s: marked '%s' but it compiles" % (path, ANNOTATION.strip("/ :")))
    return problems, verified


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cakec")
    ap.add_argument("root")
    ap.add_argument("--ptxas", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    ptxas = a.ptxas
    if ptxas is None:
        cuda = os.environ.get("CUDA_HOME")
        for cand in ([os.path.join(cuda, "bin", "ptxas")] if cuda else []) + [shutil.which("ptxas") or "",
                                                                             "/usr/local/cuda/bin/ptxas"]:
            if cand and os.access(cand, os.X_OK):
                ptxas = cand
                break
    elif ptxas == "none":
        ptxas = None
    files = []
    for top in ("tests", "samples"):
        for dirpath, _, names in os.walk(os.path.join(a.root, top)):
            files += [os.path.join(dirpath, n) for n in names if n.endswith(".cake")]
    files.sort()
    problems = []
    verified = 0
    with tempfile.TemporaryDirectory() as scratch, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for p, v in pool.map(lambda f: check(a.cakec, ptxas, f, scratch), files):
            problems += p
            verified += v
    for p in problems:
        print(p)
    print("%d files, %d configurations verified, %s, %d problems" %
          (len(files), verified, "compiled with ptxas" if ptxas else "compiled to PTX (no ptxas)", len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
