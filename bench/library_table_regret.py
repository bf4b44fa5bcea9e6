#!/usr/bin/env python3
"""How close a library's dispatch table comes to the best measured variant, set by set (docs/library.md):

    python3 bench/library_table_regret.py kernels/gemm/library_bf16_sm90.json RUN_DIR [RUN_DIR ...] [--worst 20]

Each RUN_DIR is the output of `bench/library_bench.py --all-variants` (times.json and library_bench.json).  For
every shape of every run: the variant the table chooses (cakeir.generalize.choose over the spec's "dispatch"), the
fastest variant measured there (the oracle), and torch's time of the same run.  Variants a run did not time, or
skipped on a throughput bound (`not_run`), count as unmeasured; a shape whose chosen variant is unmeasured is
counted as missing, not scored.  Prints per run: table / oracle and table / torch (geometric means of time ratios,
> 1 means faster than the reference), and oracle / torch - what no table over these variants can pass; then the
shapes with the largest regret (chosen time / oracle time) with the variant each should have taken.  A table is
judged on runs it was not written from: the spec says which runs shaped it."""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "runtime", "python"))

from cakeir.generalize import choose  # noqa: E402


def load_run(folder):
    """{shape key: (shape, {variant: ms}, torch ms)} of one all-variants run, unmeasured variants left out."""
    with open(os.path.join(folder, "library_bench.json"), encoding="utf-8") as f:
        records = json.load(f)["records"]
    out = {}
    for r in records:
        shape = {"M": r["M"], "N": r["N"], "K": r["K"]}
        times = {v: x["ms"] for v, x in r.get("variants", {}).items()
                 if not x.get("not_run") and x.get("ok") and math.isfinite(x["ms"])}
        out["M=%d,N=%d,K=%d" % (r["M"], r["N"], r["K"])] = (shape, times, r["torch"]["ms"])
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec")
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--worst", type=int, default=20, help="list this many shapes of largest regret")
    args = ap.parse_args()
    with open(args.spec, encoding="utf-8") as f:
        table = json.load(f)["dispatch"]
    regrets = []
    for folder in args.runs:
        run = load_run(folder)
        vs_oracle, vs_torch, oracle_vs_torch, missing = [], [], [], 0
        for key, (shape, times, torch_ms) in run.items():
            if not times:
                continue
            best = min(times, key=times.get)
            oracle_vs_torch.append(torch_ms / times[best])
            chosen = choose(table, shape)
            if chosen not in times:
                missing += 1
                continue
            vs_oracle.append(times[best] / times[chosen])
            vs_torch.append(torch_ms / times[chosen])
            regrets.append((times[chosen] / times[best], os.path.basename(os.path.normpath(folder)), key, chosen, best))
        print("%-12s %3d shapes: table / oracle %.3f, table / torch %.3f, oracle / torch %.3f, %d unscored" % (
            os.path.basename(os.path.normpath(folder)), len(vs_oracle), geomean(vs_oracle), geomean(vs_torch),
            geomean(oracle_vs_torch), missing))
    print("all          %3d shapes: table / oracle %.3f" % (len(regrets), geomean([1 / r[0] for r in regrets])))
    for regret, run, key, chosen, best in sorted(regrets, reverse=True)[: args.worst]:
        print("  x%.2f  %-10s %-24s %-22s -> %s" % (regret, run, key, chosen, best))


if __name__ == "__main__":
    main()
