#!/usr/bin/env python3
"""Where the time of a KNN / k-means-assignment library call goes, kernel by kernel: for each shape, CAKE's
library call (cakeir.kmeans.Kernels(CUBINS).knn / .assign) and flashlib's Triton entry point are run under
torch.profiler (CUPTI kernel records), and every kernel's mean GPU duration is listed beside the call's CUDA-event
time.  A diagnostic, not a result: no L2 flush, no interleaving (bench/library_knn_bench.py measures).

    bash bench/library_knn_stage.sh FLASHLIB_GIT_DIR              # here: bench/out/knnlib/
    python3 bench/knn_breakdown.py --out DIR [--shapes "knn 1 1 1 128 1" ...]   # GPU machine

A shape is "knn B Q M D k" or "assign B N K D"."""

import argparse
import json
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import library_knn_bench as lib  # noqa: E402
from library_knn_shapes import Shape  # noqa: E402

DEFAULT_SHAPES = [
    "knn 1 1 1 128 1", "knn 1 7 13 64 10", "knn 1 4 159 128 64", "knn 1 65537 33 64 32", "knn 1 8805 2 64 1",
    "knn 1 1 101336 128 1", "knn 16 5123 2373 64 1", "knn 4 65537 713 256 1", "knn 1 414 32 128 32",
    "knn 1 2874 2929 128 32", "knn 1 1000 74796 64 64",
    "assign 1 2 1 64", "assign 8 588626 3 64", "assign 1 65537 4 128", "assign 1 1214 142 256",
    "assign 1 1000 1000 256",
]


def parse_shape(text):
    words = text.split()
    op, nums = words[0], [int(w) for w in words[1:]]
    if op == "knn":
        b, q, m, d, k = nums
        return Shape("knn", b, q, m, d, k, b > 1)
    b, n, kc, d = nums
    return Shape("assign", b, n, kc, d, 0, b > 1)


def profile(torch, fn, args, iters):
    from torch.profiler import ProfilerActivity, profile as tprofile
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn(*args)
    end.record()
    torch.cuda.synchronize()
    event_us = start.elapsed_time(end) * 1000.0 / iters
    with tprofile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(iters):
            fn(*args)
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type.name == "CUDA":
            name = e.name[:60]
            total, count = kernels.get(name, (0.0, 0))
            kernels[name] = (total + e.device_time, count + 1)     # device_time: microseconds
    return {"event_us_per_call": event_us,
            "kernels": {n: {"us_per_call": t / iters, "launches_per_call": c / iters} for n, (t, c) in kernels.items()}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--cubins", default=lib.DEFAULT_CUBINS)
    parser.add_argument("--peers", default=lib.DEFAULT_PEERS)
    parser.add_argument("--shapes", nargs="*", default=DEFAULT_SHAPES)
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args(argv)
    import torch
    impls = lib.Impls(torch, args.cubins, args.peers, False)
    os.makedirs(args.out, exist_ok=True)
    results, lines = [], []
    for text in args.shapes:
        shape = parse_shape(text)
        x, c, _ = lib.make_inputs(torch, shape, 1234)
        fns = impls.for_shape(shape)
        record = {"shape": text}
        for name in ("cake", "flashlib"):
            if name not in fns:
                continue
            if shape.op == "knn":
                call_args = (x, c)
            else:
                cn = (c.float() * c.float()).sum(-1)
                lead = x.shape[:-1]
                call_args = (x, c, cn, torch.empty(lead, dtype=torch.int32, device="cuda"),
                             torch.empty(lead, dtype=torch.float32, device="cuda"))
            try:
                record[name] = profile(torch, fns[name], call_args, args.iters)
            except Exception as error:  # noqa: BLE001
                record[name] = {"error": "%s: %s" % (type(error).__name__, error)}
        results.append(record)
        first = len(lines)
        lines.append("## %s" % text)
        for name in ("cake", "flashlib"):
            r = record.get(name, {})
            if "error" in r:
                lines.append("- %s: %s" % (name, r["error"]))
                continue
            if not r:
                continue
            lines.append("- %s: %.1f us/call (events)" % (name, r["event_us_per_call"]))
            for kname, k in sorted(r["kernels"].items(), key=lambda kv: -kv[1]["us_per_call"]):
                lines.append("    - %7.1f us  x%.0f  %s" % (k["us_per_call"], k["launches_per_call"], kname))
        print("\n".join(lines[first:]), flush=True)
    with open(os.path.join(args.out, "knn_breakdown.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "knn_breakdown.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
