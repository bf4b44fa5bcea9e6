#!/usr/bin/env python3
"""How the corpus splits of a knn_small launch (Kernels.knn(..., splits=S)) change its time, against the
splits cakeir.kmeans.Kernels._small_splits picks, on shapes with few query blocks, for the variant the table picks
and its siblings (the same D, KK and list layout; other ring depths and column groups): a diagnostic for tuning
_small_splits, not a result (bench/library_knn_bench.py measures).  Timing as the bench's: L2 flushed before
every run, rounds interleaved, median (bench/fragment_samples_common.time_interleaved).

    bash bench/library_knn_stage.sh FLASHLIB_GIT_DIR                      # here: bench/out/knnlib/
    python3 bench/knn_split_sweep.py --out DIR                            # GPU machine: DIR/knn_split_sweep.md"""

import argparse
import json
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
import library_knn_bench as lib  # noqa: E402
from library_knn_shapes import Shape  # noqa: E402

SHAPES = ["1 1 1041145 64 1", "1 11 217341 64 1", "1 2 65537 64 1", "1 7 65537 256 1", "1 4 333721 128 32",
          "1 123 999433 64 10", "8 1 38230 64 16", "1 1000 89034 256 1", "1 24 28635 128 10", "3 7 1131 128 16",
          "1 12 1597 128 32", "1 72 2355 256 10", "4 4 1181057 64 1", "16 3 140253 128 1", "8 10 180473 128 1",
          "16 7 22306 256 32", "16 12 47701 128 32", "1 1 11185 128 32", "3 1 10371 64 64", "1 1 178318 64 64",
          "16 1 65537 64 10"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"), required=os.environ.get("OUT") is None)
    p.add_argument("--cubins", default=lib.DEFAULT_CUBINS)
    args = p.parse_args()
    lib_path = os.path.join(args.cubins, "libcake_runtime.so")
    if "CAKE_RUNTIME_LIB" not in os.environ and os.path.isfile(lib_path):
        os.environ["CAKE_RUNTIME_LIB"] = lib_path
    import torch
    import fragment_samples_common as common
    sys.path.insert(0, os.path.join(lib.REPO, "runtime", "python"))
    from cakeir.kmeans import Kernels
    cake = Kernels(args.cubins)
    small = cake._library("knn_small", torch.bfloat16)
    small.set_arch("sm_90a")
    flusher = common.L2Flusher(torch)
    lines = ["# knn_small time by corpus splits", "", "| shape | variant | auto splits | splits: us |", "|---|---|---|---|"]
    records = []
    for i, text in enumerate(SHAPES):
        b, q, m, d, k = (int(w) for w in text.split())
        shape = Shape("knn", b, q, m, d, k, b > 1)
        x, c, _ = lib.make_inputs(torch, shape, 20261204 + i)
        picked = small.variant_name(B=b, N=q, K=m, D=d, k=k)
        ct = small.ct_params(picked)
        siblings = [v for v in small.variants if v != picked and all(
            small.ct_params(v).get(key) == ct.get(key) for key in ("HD", "KK", "QL"))]   # other rings, WC
        for name in [picked] + siblings:
            kk, tn, wc = cake._small_kk(small, name)
            auto = cake._small_splits(b, q, m, tn, wc, kk, x.device, cake._small_per_sm(small, name, x.device))
            tiles = -(-m // tn)
            lps = sorted({lp for lp in (1, 2, 4, 8, 16, 33, 66, 132, 264, 396, 528, auto // 2, auto, auto * 2)
                          if 1 <= lp <= min(tiles, 65535)})
            fns = {"splits=%d" % lp: (lambda lp=lp: cake.knn(x, c, k, variant=name, splits=lp)) for lp in lps}
            timing = common.time_interleaved(torch, fns, flusher, 3, 3)
            us = {n: t["ms"] * 1000 for n, t in timing.items()}
            best = min(us, key=us.get)
            records.append({"shape": text, "variant": name, "auto": auto, "us": us, "best": best})
            lines.append("| B=%d Q=%d M=%d D=%d k=%d | %s | %d (%.1f us) | %s |" % (
                b, q, m, d, k, name, auto, us["splits=%d" % auto],
                ", ".join(("**%s: %.1f**" if n == best else "%s: %.1f") % (n, v) for n, v in us.items())))
            print(lines[-1], flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "knn_split_sweep.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "knn_split_sweep.json"), "w") as f:
        json.dump(records, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
