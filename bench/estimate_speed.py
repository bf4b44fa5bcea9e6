#!/usr/bin/env python3
"""Speed of `cakec --estimate --sweep` (issue 6: >= 1000 GEMM variants per second), on this machine, no GPU.

Usage:
  python3 bench/estimate_speed.py [--cakec build-bench/cakec] [--repeat 5] [--jobs 1,all] [--json OUT.json]

Each sweep below is run with `--no-verify` (the exploration fast path: parse + sema + cost model per
variant) with each -j of --jobs ("all": cakec's default, one thread per core); the median wall time of --repeat runs
is reported as variants per second (every variant, rejected ones included: sema rejects those that break the
file's `requires` or the machine's limits) and estimates per second (the variants that got an estimate).
The printed table is what docs/cost-model.md section 6 quotes."""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SWEEPS = [
    ("ampere_gemm (ragged, mma.sync)", "samples/ampere_gemm.cake", "sm_90", "M=4096,N=4096,K=4096",
     ["BM=64,128,256", "BN=64,128,256", "BK=32,64", "S=2,3,4,5", "WM=32,64", "WN=32,64"]),
    ("ampere_gemm ragged shape", "samples/ampere_gemm.cake", "sm_90", "M=4000,N=4000,K=4000",
     ["BM=64,128,256", "BN=64,128,256", "BK=32,64", "S=2,3,4,5", "WM=32,64", "WN=32,64"]),
    ("hopper_gemm_persistent", "samples/hopper_gemm_persistent.cake", None, "M=4096,N=4096,K=4096",
     ["BN=64,128,192,256", "S=2,3,4,5,6", "GM=1,2,4,8,16"]),
    ("hopper_gemm_tma_epilogue", "samples/hopper_gemm_tma_epilogue.cake", None, "M=4000,N=4000,K=4000",
     ["BN=64,128,192,256", "S=2,3,4,5", "GM=1,4,8"]),
    ("simt_gemm", "samples/simt_gemm.cake", "sm_90", "M=4096,N=4096,K=4096",
     ["BM=32,64,128,256", "BN=32,64,128,256", "BK=8,16,32", "TM=4,8", "TN=4,8"]),
]

HEADER = re.compile(r"(\d+) variants, (\d+) estimated, (\d+) rejected")


def run_sweep(cakec, path, arch, shape, axes, jobs):
    cmd = [cakec, path, "--estimate", "--no-verify", "--shape", shape, "--sweep", *axes]
    if arch:
        cmd += ["--arch", arch]
    if jobs:
        cmd += ["-j", str(jobs)]
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=True).stdout
    elapsed = time.perf_counter() - start
    m = HEADER.search(out)
    if not m:
        sys.exit(f"unexpected sweep output from {' '.join(cmd)}:\n{out[:400]}")
    return elapsed, int(m.group(1)), int(m.group(2)), " ".join(cmd[1:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cakec", default=os.path.join(REPO, "build-bench", "cakec"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--jobs", default="1,all", help="comma-separated -j values; 'all' = cakec's default")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    job_counts = [None if j == "all" else int(j) for j in args.jobs.split(",")]

    rows = []
    print(f"cores: {os.cpu_count()}; median of {args.repeat} runs; --no-verify")
    print("| sweep | jobs | variants | estimated | wall | variants/s | estimates/s |")
    print("|---|---|---|---|---|---|---|")
    for name, path, arch, shape, axes in SWEEPS:
        for jobs in job_counts:
            times = []
            for _ in range(args.repeat):
                elapsed, variants, estimated, command = run_sweep(args.cakec, path, arch, shape, axes, jobs)
                times.append(elapsed)
            wall = statistics.median(times)
            row = {"sweep": name, "jobs": jobs or os.cpu_count(), "variants": variants, "estimated": estimated,
                   "wall_s": wall, "variants_per_s": variants / wall, "estimates_per_s": estimated / wall,
                   "command": "cakec " + command}
            rows.append(row)
            print(f"| {name} | {row['jobs']} | {variants} | {estimated} | {wall * 1e3:.0f} ms | "
                  f"{row['variants_per_s']:.0f} | {row['estimates_per_s']:.0f} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cores": os.cpu_count(), "repeat": args.repeat, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
