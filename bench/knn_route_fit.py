#!/usr/bin/env python3
"""Fits Kernels.knn's choice between its libraries to measured training shapes: for each k class (the KK of the
variants: k <= 1, 10, 16, 32, 64), the work bound log2(B Q M D) under which knn_small serves
(cakeir.kmeans.SMALL_WORK_LOG2), knn_small's list layout (QL = 0 per-thread lists, QL = 1 quad lists) and the
box of corpus rows M and queries Q inside which its WC = 8 variant (warps sharing query rows) serves (both: the
small library's dispatch table), chosen together to minimise the summed log time over the class's training
shapes; then, with those fixed, the corpus sizes M where the shallow-ring variant of the layout (S = 2, "_t"
paths) serves: M <= a bound (before the WC box) or M in a range above it (after the box).  Shapes the router sent to the
k-means assignment (k = 1, variant "assign:...") stay there.

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
                         "flashlib": t["flashlib"]["ms"], "cake": t["cake"]["ms"], "paths": paths,
                         "assign": str(r.get("variant", "")).startswith("assign:") and "argmin" in paths})
    return rows


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def route(r, rule, shallow=(0, math.inf, math.inf)):
    """The path a fitted rule takes for a shape: knn_small below the work bound (its shallow-ring variant for
    M <= shallow[0], else its WC variant inside the box of M and Q, else the shallow-ring variant for
    shallow[1] <= M <= shallow[2]), the knn library above it."""
    bound, layout, m_max, q_max = rule
    if r["assign"]:                     # the router's k = 1 choice, not the fit's
        return "argmin"
    if r["work"] >= bound and "big" in r["paths"]:
        return "big"
    if r["m"] <= shallow[0] and layout + "_t" in r["paths"]:
        return layout + "_t"
    if r["m"] <= m_max and r["q"] <= q_max and layout + "_wc" in r["paths"]:
        return layout + "_wc"
    if shallow[1] <= r["m"] <= shallow[2] and layout + "_t" in r["paths"]:
        return layout + "_t"
    return layout


def fitted_route(r, rule):
    """route() under a fitted rule of fit()."""
    return route(r, rule[:4], rule[4:])


def fit_shallow(members, rule):
    """(cost, (M bound below, M range above)) of the shallow-ring variant with the least summed log time,
    given the rule."""
    best = None
    powers = [1 << a for a in range(0, 21)] + [math.inf]
    for lo in [0] + [1 << a for a in range(0, 13)]:
        for hi in powers:
            for top in [t for t in powers if t >= hi]:
                cost = sum(math.log(r["paths"][route(r, rule, (lo, hi, top))]) for r in members)
                if best is None or cost < best[0] - 1e-9:
                    best = (cost, (lo, hi, top))
    return best


def fit(rows):
    """{k class: (work bound, small layout, M bound, Q bound of the WC variants, M bound below and M range
    above of the shallow-ring variants)}: the rule with the least summed log time over the class's training shapes
    (for each layout its work bound and WC box first, then its shallow-ring bounds)."""
    out = {}
    boxes = [(0, 0)] + [(1 << a, 1 << b) for a in range(6, 16) for b in range(2, 18)]
    for c in K_CLASSES:
        members = [r for r in rows if k_class(r["k"]) == c]
        best = None
        for layout in ("small_ql0", "small_ql1"):
            if not members or not all(layout in r["paths"] or r["assign"] for r in members):
                continue
            first, ties = None, []
            for m_max, q_max in boxes:
                for bound in [w / 2 for w in range(0, 90)] + [99.0]:
                    rule = (bound, layout, m_max, q_max)
                    cost = sum(math.log(r["paths"][route(r, rule)]) for r in members)
                    if first is None or cost < first[0] - 1e-9:
                        first, ties = (cost, rule), [bound]
                    elif abs(cost - first[0]) <= 1e-9 and rule[1:] == first[1][1:]:
                        ties.append(bound)
            # bounds between the same training shapes tie: the middle one, not the lowest
            first = (first[0], (ties[len(ties) // 2],) + first[1][1:])
            cost, shallow = fit_shallow(members, first[1])
            if best is None or cost < best[0] - 1e-9:
                best = (cost, first[1] + shallow)
        if best is not None:
            out[c] = best[1]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("jsonl")
    args = p.parse_args()
    rows = [r for r in load(args.jsonl) if r["paths"]]
    rules = fit(rows)
    print("k class  work bound  layout      WC box (M, Q)      shallow M               shapes  cake    fitted  best path")
    for c in K_CLASSES:
        members = [r for r in rows if k_class(r["k"]) == c]
        if c not in rules:
            continue
        bound, layout, m_max, q_max, t_lo, t_hi, t_top = rules[c]
        print("k <= %-3d %-11s %-11s %-18s %-23s %-7d %-7.3f %-7.3f %.3f" % (
            c, "2^%.1f" % bound, layout, "<= %d, <= %d" % (m_max, q_max), "<= %d, %s..%s" % (t_lo, t_hi, t_top),
            len(members), geomean([r["flashlib"] / r["cake"] for r in members]),
            geomean([r["flashlib"] / r["paths"][fitted_route(r, rules[c])] for r in members]),
            geomean([r["flashlib"] / min(r["paths"].values()) for r in members])))
    every = [(r, rules[k_class(r["k"])]) for r in rows if k_class(r["k"]) in rules]
    print("all      %-66s %-7d %-7.3f %-7.3f %.3f" % (
        "", len(every), geomean([r["flashlib"] / r["cake"] for r, _ in every]),
        geomean([r["flashlib"] / r["paths"][fitted_route(r, rule)] for r, rule in every]),
        geomean([r["flashlib"] / min(r["paths"].values()) for r, _ in every])))
    print(json.dumps({str(c): {"work_log2": rules[c][0], "layout": rules[c][1], "wc_max_m": rules[c][2],
                               "wc_max_q": rules[c][3], "shallow_max_m": rules[c][4],
                               "shallow_min_m": rules[c][5], "shallow_top_m": rules[c][6]} for c in rules}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
