#!/usr/bin/env python3
"""Fits Kernels.knn's choice between its libraries to measured training shapes: for each k class (the KK of the
variants: k <= 1, 10, 16, 32, 64), the work bound log2(B Q M D) under which knn_small serves
(cakeir.kmeans.SMALL_WORK_LOG2), knn_small's list layout (QL = 0 per-thread lists, QL = 1 quad lists) and the
box of corpus rows M and queries Q inside which its WC = 8 variant (warps sharing query rows) serves (both: the
small library's dispatch table), chosen together to minimise the summed log time over the class's training
shapes; then, with those fixed, the box of corpus rows M (at most) and queries Q (at least) inside which the
shallow-ring variant of the layout (S = 2, "_t" paths) serves.

    python3 bench/library_knn_bench.py --out DIR --sets train --libs knn --paths     # GPU machine
    python3 bench/knn_route_fit.py DIR/library_knn.jsonl[.gz]                        # here

Prints, per class, the chosen bound and layout, the geomean ratio to flashlib of the current routing ("cake"), of
the fitted one and of the best path per shape (the bound on what routing alone can reach)."""

import argparse
import gzip
import json
import math

K_CLASSES = (1, 10, 16, 32, 64)


def k_class(k):
    return next(c for c in K_CLASSES if k <= c)


def load(path):
    rows = []
    with (gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")) as f:
        for line in f:
            r = json.loads(line)
            t = r.get("timing", {})
            if r.get("status") != "ok" or "flashlib" not in t or "cake" not in t:
                continue
            d = r["dims"]
            paths = {n[len("path:"):]: v["ms"] for n, v in t.items() if n.startswith("path:")}
            rows.append({"shape": r["shape"], "k": d["k"], "work": math.log2(d["B"] * d["N"] * d["K"] * d["D"]),
                         "m": d["K"], "q": d["N"],
                         "flashlib": t["flashlib"]["ms"], "cake": t["cake"]["ms"], "paths": paths})
    return rows


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def route(r, rule, tiny=(0, 0)):
    """The path a fitted rule takes for a shape: knn_small below the work bound (its shallow-ring variant
    inside the tiny box: M <= tiny[0], Q >= tiny[1]; else its WC variant inside the box of M and Q), the knn
    library above it."""
    bound, layout, m_max, q_max = rule
    if r["work"] >= bound and "big" in r["paths"]:
        return "big"
    if r["m"] <= tiny[0] and r["q"] >= tiny[1] and layout + "_t" in r["paths"]:
        return layout + "_t"
    if r["m"] <= m_max and r["q"] <= q_max and layout + "_wc" in r["paths"]:
        return layout + "_wc"
    return layout


def fitted_route(r, rule):
    """route() under a fitted rule of fit()."""
    return route(r, rule[:4], rule[4:])


def fit_tiny(members, rule):
    """(M bound, Q bound) of the shallow-ring variant's box with the least summed log time, given the rule."""
    best = None
    for tiny in [(0, 0)] + [(1 << a, q) for a in range(0, 12) for q in [0] + [1 << b for b in range(4, 18)]]:
        cost = sum(math.log(r["paths"][route(r, rule, tiny)]) for r in members)
        if best is None or cost < best[0] - 1e-9:
            best = (cost, tiny)
    return best[1]


def fit(rows):
    """{k class: (work bound, small layout, M bound, Q bound of the WC variants, M bound, Q lower bound of
    the shallow-ring variants)}: the rule with the least summed log time over the class's training shapes."""
    out = {}
    boxes = [(0, 0)] + [(1 << a, 1 << b) for a in range(6, 16) for b in range(2, 18)]
    for c in K_CLASSES:
        members = [r for r in rows if k_class(r["k"]) == c]
        if not members:
            continue
        best = None
        for layout in ("small_ql0", "small_ql1"):
            if not all(layout in r["paths"] for r in members):
                continue
            for m_max, q_max in boxes:
                for bound in [w / 2 for w in range(0, 90)] + [99.0]:
                    rule = (bound, layout, m_max, q_max)
                    cost = sum(math.log(r["paths"][route(r, rule)]) for r in members)
                    if best is None or cost < best[0] - 1e-9:
                        best = (cost, rule)
        if best is not None:
            out[c] = best[1] + fit_tiny(members, best[1])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("jsonl")
    args = p.parse_args()
    rows = [r for r in load(args.jsonl) if r["paths"]]
    rules = fit(rows)
    print("k class  work bound  layout      WC box (M, Q)      tiny box (M, Q)    shapes  cake    fitted  best path")
    for c in K_CLASSES:
        members = [r for r in rows if k_class(r["k"]) == c]
        if c not in rules:
            continue
        bound, layout, m_max, q_max, t_m, t_q = rules[c]
        print("k <= %-3d %-11s %-11s %-18s %-18s %-7d %-7.3f %-7.3f %.3f" % (
            c, "2^%.1f" % bound, layout, "<= %d, <= %d" % (m_max, q_max), "<= %d, >= %d" % (t_m, t_q),
            len(members), geomean([r["flashlib"] / r["cake"] for r in members]),
            geomean([r["flashlib"] / r["paths"][fitted_route(r, rules[c])] for r in members]),
            geomean([r["flashlib"] / min(r["paths"].values()) for r in members])))
    every = [(r, rules[k_class(r["k"])]) for r in rows if k_class(r["k"]) in rules]
    print("all      %-61s %-7d %-7.3f %-7.3f %.3f" % (
        "", len(every), geomean([r["flashlib"] / r["cake"] for r, _ in every]),
        geomean([r["flashlib"] / r["paths"][fitted_route(r, rule)] for r, rule in every]),
        geomean([r["flashlib"] / min(r["paths"].values()) for r, _ in every])))
    print(json.dumps({str(c): {"work_log2": rules[c][0], "layout": rules[c][1], "wc_max_m": rules[c][2],
                               "wc_max_q": rules[c][3], "shallow_max_m": rules[c][4],
                               "shallow_min_q": rules[c][5]} for c in rules}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
