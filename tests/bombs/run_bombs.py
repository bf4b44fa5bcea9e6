#!/usr/bin/env python3
"""Runs every bomb of gen_bombs.py through cakec in every mode and checks the resource promise of issue 12:
no input under 1 MB makes cakec take more than 5 s or 1 GB, whatever it answers.

Modes: --verify-only, --estimate --shape S, -o OUT.cubin, --emit=ptx -o OUT.ptx, and --estimate --sweep AXES for
a bomb that names its axes.  Each run is measured with
wait4: its CPU time (user + system, of cakec and ptxas; what the limit is about, since wall-clock time on a
shared machine mostly measures the other tenants) and peak RSS; it is killed at 4x the limit of wall time.  cakec's exit status is not
judged (a bomb may well be an error: E0704, E0670, ...) except that it must not crash (a signal, or the
internal-error status 4).  A run over its CPU limit is repeated twice and its least CPU time counts.  Prints one
line per failure and, last, the runs closest to their CPU limits, the slowest and the largest; exit 1 on any failure.
Bombs named in tests/bombs/known-slow.txt (an open issue each) are skipped unless --all is given; an entry
NAME:MODE (many_kernels:-o) skips that mode only.  A bomb with its own "limit_s" in bombs.json (gen_bombs.py) is
held to that CPU limit times --bomb-limit-scale (for slower builds: the unoptimised ASan + UBSan one), at most
--limit-s.
--modes verify,estimate,cubin,ptx,sweep picks the modes (default: all).
Usage: run_bombs.py --cakec PATH [--work DIR] [--limit-s 5] [--limit-mb 1024] [--bomb-limit-scale 1]
                    [--only SUBSTRING] [--all] [--modes M,...]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# A run over its CPU limit is repeated up to this many times and its least CPU time counts: on a shared machine
# the other tenants inflate CPU time too (a busy sibling hyperthread, lower clocks), by up to ~2x on CI, while a
# real regression is over the limit every time.
RETRIES_OVER_LIMIT = 2
# Mode names for --modes, and the option each stands for.  cakec verifies in every mode, so a slow build (ASan +
# UBSan) covers all of cakec's code with cubin, estimate and sweep: verify lies inside both, ptx inside cubin.
MODE_NAMES = {"verify": "--verify-only", "estimate": "--estimate", "cubin": "-o", "ptx": "--emit=ptx", "sweep": "--sweep"}


def run_one(argv, limit_s):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    killed = False
    status = None
    rusage = None
    while True:
        pid, st, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            status, rusage = st, ru
            break
        if time.monotonic() - start > 4 * limit_s:
            killed = True
            os.killpg(proc.pid, signal.SIGKILL)
            _, status, rusage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    elapsed = rusage.ru_utime + rusage.ru_stime
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    return elapsed, rusage.ru_maxrss / 1024.0, status, killed, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cakec", required=True)
    ap.add_argument("--work")
    ap.add_argument("--limit-s", type=float, default=5.0)
    ap.add_argument("--limit-mb", type=float, default=1024.0)
    ap.add_argument("--bomb-limit-scale", type=float, default=1.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--modes", default=",".join(MODE_NAMES),
                    help="comma-separated subset of " + ",".join(MODE_NAMES))
    args = ap.parse_args()
    unknown = set(args.modes.split(",")) - set(MODE_NAMES)
    if unknown:
        ap.error(f"--modes: unknown mode(s) {', '.join(sorted(unknown))}")
    selected = {MODE_NAMES[m] for m in args.modes.split(",")}
    work = args.work or tempfile.mkdtemp(prefix="cake-bombs-")
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_bombs.py"), work], check=True, stdout=subprocess.DEVNULL)
    bombs = json.load(open(os.path.join(work, "bombs.json")))
    known = set()
    kf = os.path.join(HERE, "known-slow.txt")
    if os.path.exists(kf) and not args.all:
        known = {l.split()[0] for l in open(kf) if l.strip() and not l.startswith("#")}
    failures = []
    results = []
    for b in bombs:
        name = os.path.basename(b["file"])[:-5]
        if (args.only and args.only not in name) or name in known:
            continue
        modes = {
            "--verify-only": ["--verify-only"],
            "--estimate": ["--estimate", "--shape", b["shape"]] if b["shape"] else ["--estimate"],
            "-o": ["-o", os.path.join(work, name + ".cubin")],
            "--emit=ptx": ["--emit=ptx", "-o", os.path.join(work, name + ".ptx")],
        }
        if b.get("sweep"):
            modes["--sweep"] = ["--estimate", "--shape", b["shape"], "--sweep"] + b["sweep"].split()
        for mode, extra in modes.items():
            if mode not in selected or f"{name}:{mode}" in known:
                continue
            limit_s = min(args.limit_s, b.get("limit_s", args.limit_s) * args.bomb_limit_scale)
            elapsed, mb, status, killed, err = run_one([args.cakec, b["file"]] + extra, args.limit_s)
            for _ in range(RETRIES_OVER_LIMIT):
                if killed or elapsed <= limit_s:
                    break
                again = run_one([args.cakec, b["file"]] + extra, args.limit_s)
                if again[0] < elapsed:
                    elapsed, mb, status, killed, err = again
            code = os.waitstatus_to_exitcode(status)
            results.append((elapsed, mb, name, mode, code, limit_s))
            why = []
            if killed:
                why.append(f"killed after {4 * args.limit_s:g} s of wall time")
            elif elapsed > limit_s:
                why.append(f"took {elapsed:.2f} s of CPU (limit {limit_s:g} s)")
            if mb > args.limit_mb:
                why.append(f"peak RSS {mb:.0f} MB")
            if not killed and (code < 0 or code == 4):
                last = err.strip().splitlines()[-1:] or [""]
                why.append(f"crashed (exit {code}): {last[0][:200]}")
            if why:
                failures.append(f"FAIL {name} {mode}: {', '.join(why)}  ({b['why']})")
                print(failures[-1], flush=True)
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    if not results:
        print("run_bombs: no bomb selected")
        return 1
    results.sort(key=lambda r: r[0] / r[5], reverse=True)
    print("closest to their CPU limits:")
    for elapsed, mb, name, mode, code, limit_s in results[:8]:
        print(f"  {elapsed:6.2f} s CPU of {limit_s:g} {mb:7.1f} MB  {name} {mode} (exit {code})")
    peak = max(results, key=lambda r: r[1])
    e, mb, name, mode, _, _ = max(results)
    print(f"run_bombs: {len(results)} runs ({len(known)} known-slow bombs skipped), {len(failures)} over the limits; "
          f"slowest: {name} {mode} {e:.2f} s CPU; "
          f"largest: {peak[2]} {peak[3]} {peak[1]:.0f} MB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
