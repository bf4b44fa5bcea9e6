#!/usr/bin/env python3
"""bench/knn_ab.py: two builds of the KNN libraries against each other and flashlib, in one process.

Kernels.knn of cubin folder A and of cubin folder B (each a bench/library_knn_stage.sh `cubins/` folder: its
knn_bf16/, knn_small_bf16/ and kmeans_assign_bf16/ libraries; one runtime, B's) and flashlib's KNN are timed
on the same inputs under bench/library_knn_bench.py's protocol (fresh seeded inputs with duplicate rows, outputs
checked against torch's, L2 flushed before every timed run, interleaved rounds, median of CUDA events).  The
shapes: those of the held-out generator (bench/library_knn_shapes.py, --seed) with k in --ks and work
B Q M D below 2^--max-work-log2, --count of them drawn at random (seeded).  Prints one JSON line per shape and a summary; writes
all of it to --out.

    python3 bench/knn_ab.py --a bench/out/knnlib/cubins_old --b bench/out/knnlib/cubins --out ab.json \\
        --seed 20261210 --ks 1 --max-work-log2 28 --count 60
"""
import argparse
import json
import math
import os
import random
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(os.path.dirname(BENCH_DIR), "runtime", "python"))


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="cubin folder of build A (the baseline)")
    ap.add_argument("--b", required=True, help="cubin folder of build B")
    ap.add_argument("--peers", default=None, help="the folder holding flashlib/ (default: the stage's peers/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20261210)
    ap.add_argument("--ks", default="1", help="comma-separated k values to keep")
    ap.add_argument("--max-work-log2", type=float, default=64.0)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--budget-s", type=float, default=1e9)
    args = ap.parse_args()

    import torch
    import fragment_samples_common as common
    import library_knn_bench as lib
    import library_knn_shapes as shapes_mod
    from cakeir import kmeans as cake_kmeans

    ks = {int(k) for k in args.ks.split(",")}
    chosen = [s for s in shapes_mod.shapes(seed=args.seed) if s.op == "knn" and s.k in ks
              and math.log2(s.work) < args.max_work_log2]
    random.Random(args.seed).shuffle(chosen)           # a sample of every kind, not the generator's first ones
    chosen = chosen[:args.count]
    impls = lib.Impls(torch, args.b, args.peers or lib.DEFAULT_PEERS, False)
    kernels = {"a": cake_kmeans.Kernels(args.a), "b": impls.cake}
    flusher = common.L2Flusher(torch)
    start = time.time()
    records = []
    for i, s in enumerate(chosen):
        if time.time() - start > args.budget_s:
            print("budget spent: %d of %d shapes" % (i, len(chosen)), flush=True)
            break
        x, c, _ = lib.make_inputs(torch, s, args.seed * 1000 + i)
        fns = {name: (lambda x, c, kern=kern: kern.knn(x, c, s.k)) for name, kern in kernels.items()}
        if impls.flash_knn is not None:
            fns["flashlib"] = impls.for_shape(s)["flashlib"]
        ok = {}
        if s.b * s.q * s.m <= 2 ** 26:     # the k smallest squared distances, from torch in f32
            kk = min(s.k, s.m)                # past M the lists end with +inf
            want = torch.cdist(x.float(), c.float()).pow(2).topk(kk, dim=-1, largest=False).values
            for name in ("a", "b"):
                dist, _ = fns[name](x, c)
                ok[name] = bool(torch.allclose(dist[..., :kk], want, rtol=2e-2,
                                               atol=2e-2 * (1 + float(want.abs().max()))))
        timed = {name: (lambda fn=fn: fn(x, c)) for name, fn in fns.items()}
        t = common.time_interleaved(torch, timed, flusher, args.rounds, args.iters)
        ms = {name: v["ms"] for name, v in t.items()}
        route = {name: list(kern.knn_route(s.b, s.q, s.m, s.d, s.k)) for name, kern in kernels.items()}
        rec = {"shape": s.label, "work_log2": round(math.log2(s.work), 2), "ms": ms, "ok": ok, "route": route,
               "b_over_a": ms["a"] / ms["b"]}
        if "flashlib" in ms:
            rec["x_flashlib"] = {name: ms["flashlib"] / ms[name] for name in ("a", "b")}
        records.append(rec)
        print(json.dumps(rec), flush=True)
    summary = {"shapes": len(records), "wrong": sum(1 for r in records if not all(r["ok"].values())),
               "unchecked": sum(1 for r in records if not r["ok"]),
               "b_over_a": geomean([r["b_over_a"] for r in records])}
    if records and "x_flashlib" in records[0]:
        for name in ("a", "b"):
            summary["x_flashlib_" + name] = geomean([r["x_flashlib"][name] for r in records])
            summary["below_0.9_" + name] = sum(1 for r in records if r["x_flashlib"][name] < 0.9)
    print(json.dumps(summary), flush=True)
    with open(args.out, "w") as f:
        json.dump({"args": vars(args), "summary": summary, "records": records}, f, indent=1)


if __name__ == "__main__":
    main()
