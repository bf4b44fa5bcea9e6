#!/usr/bin/env python3
"""The cost model as a library's dispatcher, scored on measured times (no GPU needed).

    python3 bench/library_model_dispatch.py --spec kernels/gemm/library_bf16_sm90.json \
        bench/results/2026-12-07-library-gemm/run6 bench/results/2026-12-07-library-gemm/run6-heldout

Each RUN folder is a `bench/library_bench.py --all-variants` output (times.json: every variant's measured time per
shape; library_bench.json: torch's).  For every shape, `cakec library estimate SPEC --json` prices the spec's
variants (each as the whole sequence of kernels it launches); the model's choice is the cheapest variant among
those measured correct at that shape.  Per run it prints the geometric means of chosen / best measured variant and
of torch / chosen, once over every variant and once without the split-K ones (variants of several kernels), and
the spec's own table (its dispatch entries evaluated at the shape) for comparison, on the same times.
"""

import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runtime", "python"))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", required=True, help="the library spec whose variants the model prices")
    ap.add_argument("--cakec", default=os.path.join(os.path.dirname(HERE), "build", "cakec"))
    ap.add_argument("runs", nargs="+", help="library_bench.py --all-variants output folders")
    args = ap.parse_args()
    from cakeir import generalize as gen

    with open(args.spec, encoding="utf-8") as f:
        spec = json.load(f)
    multi = {v["name"] for v in spec["variants"] if v.get("then")}
    for run in args.runs:
        with open(os.path.join(run, "times.json"), encoding="utf-8") as f:
            times = json.load(f)["times"]
        with open(os.path.join(run, "library_bench.json"), encoding="utf-8") as f:
            records = json.load(f)["records"]
        shapes = [{"M": r["M"], "N": r["N"], "K": r["K"]} for r in records]
        torch_ms = {gen.shape_key(s, ["M", "N", "K"]): r["torch"]["ms"] for s, r in zip(shapes, records)}
        cmd = [args.cakec, "library", "estimate", args.spec, "--json"]
        for s in shapes:
            cmd += ["--shape", "M=%d,N=%d,K=%d" % (s["M"], s["N"], s["K"])]
        doc = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        rows = {"model, every variant": ([], []), "model, no split-K": ([], []), "the spec's table": ([], [])}
        for s, priced in zip(shapes, doc["shapes"]):
            key = gen.shape_key(s, ["M", "N", "K"])
            measured = {v: t[key] for v, t in times.items() if t.get(key, math.inf) < math.inf}
            if not measured:
                continue
            best = min(measured.values())
            predicted = {v["variant"]: v["predicted_ms"] for v in priced["variants"] if "predicted_ms" in v}
            picks = {
                "model, every variant": min((v for v in predicted if v in measured), key=predicted.get, default=None),
                "model, no split-K": min((v for v in predicted if v in measured and v not in multi),
                                         key=predicted.get, default=None),
                "the spec's table": priced["table"] if priced["table"] in measured else None,
            }
            for name, pick in picks.items():
                if pick:
                    rows[name][0].append(measured[pick] / best)
                    rows[name][1].append(torch_ms[key] / measured[pick])
        print("%s (%d shapes)" % (run, len(shapes)))
        for name, (regret, vs_torch) in rows.items():
            print("  %-22s %3d shapes  chosen / best %.3f  torch / chosen %.3f" %
                  (name, len(regret), geomean(regret), geomean(vs_torch)))


if __name__ == "__main__":
    main()
