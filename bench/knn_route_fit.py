#!/usr/bin/env python3
"""Fits Kernels.knn's choice between its libraries to measured training shapes: for each k class (the KK of the
variants: k <= 1, 10, 16, 32, 64), the work bound log2(B Q M D) under which knn_small serves
(cakeir.kmeans.SMALL_WORK_LOG2) and knn_small's list layout (QL = 0 per-thread lists, QL = 1 quad lists: the
small library's dispatch table), each chosen to minimise the summed log time over the class's training shapes.

    python3 bench/library_knn_bench.py --out DIR --sets train --libs knn --paths     # GPU machine
    python3 bench/knn_route_fit.py DIR/library_knn.jsonl                             # here

Prints, per class, the chosen bound and layout, the geomean ratio to flashlib of the current routing ("cake"), of
the fitted one and of the best path per shape (the bound on what routing alone can reach)."""

import argparse
import json
import math

K_CLASSES = (1, 10, 16, 32, 64)


def k_class(k):
    return next(c for c in K_CLASSES if k <= c)


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            t = r.get("timing", {})
            if r.get("status") != "ok" or "flashlib" not in t or "cake" not in t:
                continue
            d = r["dims"]
            paths = {n[len("path:"):]: v["ms"] for n, v in t.items() if n.startswith("path:")}
            rows.append({"shape": r["shape"], "k": d["k"], "work": math.log2(d["B"] * d["N"] * d["K"] * d["D"]),
                         "flashlib": t["flashlib"]["ms"], "cake": t["cake"]["ms"], "paths": paths})
    return rows


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def fit(rows):
    """{k class: (work bound, small layout)}: the pair with the least summed log time over the class."""
    out = {}
    for c in K_CLASSES:
        members = [r for r in rows if k_class(r["k"]) == c]
        if not members:
            continue
        best = None
        for layout in ("small_ql0", "small_ql1"):
            if not all(layout in r["paths"] for r in members):
                continue
            for bound in [w / 2 for w in range(0, 90)] + [99.0]:
                cost = 0.0
                for r in members:
                    path = layout if r["work"] < bound or "big" not in r["paths"] else "big"
                    cost += math.log(r["paths"][path])
                if best is None or cost < best[0] - 1e-9:
                    best = (cost, bound, layout)
        if best is not None:
            out[c] = (best[1], best[2])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("jsonl")
    args = p.parse_args()
    rows = [r for r in load(args.jsonl) if r["paths"]]
    rules = fit(rows)
    print("k class  work bound  layout      shapes  cake    fitted  best path")
    for c in K_CLASSES:
        members = [r for r in rows if k_class(r["k"]) == c]
        if c not in rules:
            continue
        bound, layout = rules[c]
        chosen = [r["paths"][layout if r["work"] < bound or "big" not in r["paths"] else "big"] for r in members]
        print("k <= %-3d %-11s %-11s %-7d %-7.3f %-7.3f %.3f" % (
            c, "2^%.1f" % bound, layout, len(members),
            geomean([r["flashlib"] / r["cake"] for r in members]),
            geomean([r["flashlib"] / t for r, t in zip(members, chosen)]),
            geomean([r["flashlib"] / min(r["paths"].values()) for r in members])))
    every = [(r, rules[k_class(r["k"])]) for r in rows if k_class(r["k"]) in rules]
    print("all      %-23s %-7d %-7.3f %-7.3f %.3f" % (
        "", len(every), geomean([r["flashlib"] / r["cake"] for r, _ in every]),
        geomean([r["flashlib"] / r["paths"][rule[1] if r["work"] < rule[0] or "big" not in r["paths"] else "big"]
                 for r, rule in every]),
        geomean([r["flashlib"] / min(r["paths"].values()) for r, _ in every])))
    print(json.dumps({"SMALL_WORK_LOG2": {str(c): rules[c][0] for c in rules},
                      "layout": {str(c): rules[c][1] for c in rules}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
