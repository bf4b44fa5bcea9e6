#!/usr/bin/env python3
"""The KNN and k-means-assignment libraries (kernels/kmeans/library_knn_bf16.json, library_assign_bf16.json)
over 400+ shapes each against flashlib and torch, in the same process (docs/library.md; protocol:
/work/shared/reference/measurement.md).

    bash bench/library_knn_stage.sh FLASHLIB_GIT_DIR          # here: bench/out/knnlib/ (libraries, runtime, peer)
    python3 bench/library_knn_bench.py --dry-run               # anywhere: the shapes, their set and dispatch entry
    python3 bench/library_knn_bench.py --out DIR               # GPU machine: DIR/library_knn.{jsonl,json,md}
    python3 bench/library_knn_bench.py --out DIR --sets train --all-variants --no-peers   # times for generalize
    python3 bench/library_knn_bench.py --out DIR --sets train --libs knn --paths          # small vs wgmma KNN
    python3 bench/library_knn_bench.py --candidates kernels/kmeans/library_knn_bf16.json -o cand.json
    python3 bench/library_knn_bench.py --candidates kernels/kmeans/library_assign_bf16.json --arch sm_90a -o c.json

Shapes (shapes(), seeded, deterministic): for KNN (queries Q x D, corpus M x D, k nearest by squared L2) and for
the assignment (points N x D, centroids K x D), D in {64, 128, 256}, k in {1, 10, 32, 64}, sizes log-uniform
(Q 1..65537, M 1..2^21, N 1..2^22, K 1..2^14) with the tails 1, 7, 1000, 65537 drawn often and a block of
shapes on every tail, half of them batched (B in 2..16, 3-d tensors) and half not (2-d tensors); the work
B * Q * M * D (B * N * K * D) is capped so that no call takes more than a few ms.  A shape goes to the training
set (the shapes `python -m cakeir.generalize` may fit buckets to) or to the held-out set by a hash of its
dimensions (about a quarter train); the tail block is always held out; KNN's training set also has k = 11, 16,
17, 33 (so the tree's thresholds on k fall exactly on the variants' KK).  Held-out: >= 400 per library.

For every shape, in one process:
  - CAKE through the public API exactly as a user calls it: cakeir.kmeans.Kernels(CUBINS).knn(q, c, k) /
    .assign(x, c, c_sq=cn, labels=L, mind=MinD) - the library's dispatch table picks the variant (Python
    dispatch, memo, launches, the work buffers it allocates: all inside the timed call);
  - flashlib's Triton entry points (flash_knn_triton, euclid_assign_triton with c_sq), the peer; torch
    (topk / argmin over ||c||^2 - 2 X C^T from the bf16 GEMM) where the score matrix fits;
  - correctness: fresh seeded inputs (half the queries / points near corpus rows / centroids, exact duplicate
    corpus rows / centroids so that ties occur); outputs poisoned (the caller-given outputs with NaN / a
    sentinel; outputs the API allocates itself come from a pool just filled with NaN / sentinel: the caching
    allocator hands the same blocks back); inputs compared bit for bit after the call; checked on sampled rows
    of the first and last batch: KNN recall@k modulo ties (bench/knn_bench.py check: tolerance
    2^-12 (||x||^2 + max ||c||^2), duplicates ordered by index, distances, sorted, distinct), the assignment's
    labels with exact and near ties allowed and MinD (bench/kmeans_assign_bench.py check_outputs); every
    output element checked for surviving poison;
  - timing: bench/fragment_samples_common.time_interleaved (events around each call on the current stream, L2
    flushed before every timed run, persisting L2 off, rounds interleaved in rotating order, warm-up excluded,
    median), with runs per round chosen from the warm-up time (about 40 ms of GPU time per function, 1..8 runs,
    3 rounds); and wall time per call of back-to-back calls after a synchronize (host dispatch and launch
    included, L2 not flushed): wall_us.  The headline ratio is flashlib's median / CAKE's median GPU time; the
    wall-time ratio is reported beside it.
flashlib's kernels take N, M, K, D as Triton constexprs: one compilation per shape.  Before the timed loop
`--compile-workers` processes (default: cores - 2) call flashlib once on every shape, filling the Triton cache
that the measuring process then reads (compilation is never timed; it only costs wall time).

Records: DIR/library_knn.jsonl gets one line per shape as soon as it is measured (a timeout loses nothing);
DIR/library_knn.md (summary, distribution, per-bucket table, every shape) and DIR/library_knn.json (everything)
are rewritten as the run goes.  --all-variants also times every feasible variant of each library directly and
writes DIR/times_<library>.json ({"times": {variant: {"B=..,N=..": ms}}}, what `python -m cakeir.generalize
--times` reads; infeasible: Infinity), DIR/train_<library>.json and DIR/validate_<library>.json (held_out,
tail).  Exit: 0 every CAKE result correct, 1 otherwise, 2 nothing could run."""

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
from library_knn_shapes import (ASSIGN_WORK_CAP, BATCHES, DIMS, KNN_WORK_CAP, KS, KS_BOUNDARY, SEED,  # noqa: E402,F401
                                SHAPE_VARS, TAILS, TRAIN_FRACTION, Shape, _in_train, bucket, shapes)

TORCH_SCORES_CAP = 1 << 29              # B * rows * cols f32 scores for the torch peer (2 GiB)
DEVICE = "cuda"                         # tests/python/test_library_knn_bench.py runs the checks on "cpu"
DEFAULT_CUBINS = os.path.join(BENCH_DIR, "out", "knnlib", "cubins")
DEFAULT_PEERS = os.path.join(BENCH_DIR, "out", "knnlib", "peers")
LIB_NAMES = {"knn": "knn_bf16", "assign": "kmeans_assign_bf16"}


# =========================================================================================== inputs
SINGLE_DRAW_BYTES = 8 << 30   # x's f32 draw in one piece up to this size (the seeded values of every earlier run)
def make_inputs(torch, shape, seed):
    """(x, c) bf16 of the shape's rank, and the exact duplicate pairs (first, second) of c's rows, first <
    second (the same in every batch): half the x rows near a random c row (noise 0.05), half spread."""
    gen = torch.Generator(device=DEVICE).manual_seed(seed)
    b, q, m, d = shape.b, shape.q, shape.m, shape.d
    c = torch.randn((b, m, d), generator=gen, device=DEVICE)
    dups = max(1, m // 16) if m >= 2 else 0
    first = second = torch.zeros(0, dtype=torch.long, device=DEVICE)
    if dups:
        src = torch.randint(0, m, (dups,), generator=gen, device=DEVICE)
        dst = torch.randint(0, m, (dups,), generator=gen, device=DEVICE)
        c[:, dst] = c[:, src]
        first, second = torch.minimum(src, dst), torch.maximum(src, dst)
    c = c.to(torch.bfloat16)
    if dups:
        same = (c[:, first] == c[:, second]).all(-1).all(0) & (first != second)
        first, second = first[same], second[same]
    owner = torch.randint(0, m, (b, q), generator=gen, device=DEVICE)
    if b * q * d * 4 <= SINGLE_DRAW_BYTES:
        noise = torch.randn((b, q, d), generator=gen, device=DEVICE)
        near = torch.rand((b, q, 1), generator=gen, device=DEVICE) < 0.5
        x = torch.where(near, torch.gather(c.float(), 1, owner.unsqueeze(-1).expand(b, q, d)) + 0.05 * noise,
                        noise * 1.5).to(torch.bfloat16)
    else:   # one batch at a time: the f32 intermediates of the whole x would not fit beside it
        x = torch.empty((b, q, d), dtype=torch.bfloat16, device=DEVICE)
        for i in range(b):
            noise = torch.randn((q, d), generator=gen, device=DEVICE)
            near = torch.rand((q, 1), generator=gen, device=DEVICE) < 0.5
            x[i] = torch.where(near, c[i].float()[owner[i]] + 0.05 * noise, noise * 1.5).to(torch.bfloat16)
            del noise, near
    if not shape.batched:
        x, c = x[0], c[0]
    return x, c, (first, second)


def poison_pool(torch, shapes_dtypes):
    """Allocates, poisons and frees tensors of the given (shape, dtype): the caching allocator hands the same
    blocks to the next allocations of these sizes (the outputs an API call allocates itself), so a result that
    is not written shows up as NaN / the sentinel."""
    import fragment_samples_common as common
    pool = [common.poisoned(torch, s, dt) for s, dt in shapes_dtypes]
    del pool


# =========================================================================================== implementations
class Impls:
    """The functions under test for each op: name -> fn(x, c, aux) -> outputs (see run_shape)."""

    def __init__(self, torch, cubins, peers_dir, no_peers):
        self.torch = torch
        self.errors = {}
        self.cake = None
        if cubins:
            import fragment_samples_common as common
            common.use_runtime(cubins)
            from cakeir import kmeans as cake_kmeans
            self.cake = cake_kmeans.Kernels(cubins)
        self.flash_knn = self.flash_assign = None
        if not no_peers:
            self._load_flashlib(peers_dir)

    def _load_flashlib(self, peers_dir):
        root = os.path.join(peers_dir or "", "flashlib")
        if not os.path.isdir(os.path.join(root, "flashlib")):
            self.errors["flashlib"] = "no flashlib package under %s" % root
            return
        sys.path.insert(0, root)
        import peer_stubs
        peer_stubs.stub_peer_imports()
        try:
            from flashlib.primitives.knn.triton.dispatch import flash_knn_triton
            self.flash_knn = flash_knn_triton
        except Exception as error:  # noqa: BLE001
            self.errors["flashlib knn"] = "%s: %s" % (type(error).__name__, error)
        try:
            from flashlib.primitives.kmeans.triton.assign import euclid_assign_triton
            self.flash_assign = euclid_assign_triton
        except Exception as error:  # noqa: BLE001
            self.errors["flashlib assign"] = "%s: %s" % (type(error).__name__, error)

    def for_shape(self, shape, variants=False, paths=False):
        """{name: fn(x, c) -> (dist or None, idx) | (labels, mind or None)}; variants: the library's feasible
        variants too, as "variant:<name>"; paths: KNN through each of Kernels.knn's two libraries, as
        "path:small_ql0", "path:small_ql1", "path:big" (knn_paths), and for k = 1 "path:argmin" (the k-means
        assignment, Kernels._knn_argmin)."""
        torch, fns = self.torch, {}
        if shape.op == "knn":
            if self.cake is not None:
                fns["cake"] = lambda x, c: self.cake.knn(x, c, shape.k)
                if variants:
                    for name in feasible_variants(self.cake, shape):
                        fns["variant:" + name] = (lambda x, c, name=name: self.cake.knn(x, c, shape.k, variant=name))
                if paths:
                    for path, name in knn_paths(self.cake, shape).items():
                        fns["path:" + path] = (lambda x, c, name=name: self.cake.knn(x, c, shape.k, variant=name))
                    knn_lib = self.cake._library("knn", torch.bfloat16)
                    assign = self.cake._library("kmeans_assign", torch.bfloat16)
                    if shape.k == 1 and knn_lib is not None and assign is not None:
                        self.cake._targeted(knn_lib, DEVICE)
                        name = self.cake._targeted(assign, DEVICE).variant_name(B=shape.b, N=shape.q, K=shape.m,
                                                                                D=shape.d)
                        fns["path:argmin"] = (lambda x, c: self.cake._knn_argmin(
                            knn_lib, assign, name, x if shape.batched else x.unsqueeze(0),
                            c if shape.batched else c.unsqueeze(0), "l2", not shape.batched))
            if self.flash_knn is not None:
                def flash(x, c):
                    xb, cb = (x, c) if shape.batched else (x.unsqueeze(0), c.unsqueeze(0))
                    idx = self.flash_knn(xb, cb, shape.k)
                    return None, (idx if shape.batched else idx[0])
                fns["flashlib"] = flash
            if shape.b * shape.q * shape.m <= TORCH_SCORES_CAP:
                def torch_knn(x, c):
                    xb, cb = (x, c) if shape.batched else (x.unsqueeze(0), c.unsqueeze(0))
                    cn = (cb.float() * cb.float()).sum(-1)
                    s = cn.unsqueeze(1) - 2.0 * torch.bmm(xb, cb.transpose(1, 2)).float()
                    idx = torch.topk(s, shape.k, dim=-1, largest=False).indices
                    return None, (idx if shape.batched else idx[0])
                fns["torch"] = torch_knn
        else:
            if self.cake is not None:
                def cake_assign(x, c, cn, labels, mind, variant=None):
                    return self.cake.assign(x, c, c_sq=cn, labels=labels, mind=mind, variant=variant)
                fns["cake"] = cake_assign
                if variants:
                    for name in feasible_variants(self.cake, shape):
                        fns["variant:" + name] = (lambda x, c, cn, labels, mind, name=name:
                                                  cake_assign(x, c, cn, labels, mind, name))
            if self.flash_assign is not None:
                def flash(x, c, cn, labels, mind):
                    xb, cb = (x, c) if shape.batched else (x.unsqueeze(0), c.unsqueeze(0))
                    out = labels if shape.batched else labels.unsqueeze(0)
                    self.flash_assign(xb, cb, out=out, c_sq=cn if shape.batched else cn.unsqueeze(0))
                    return labels, None
                fns["flashlib"] = flash
            if shape.b * shape.q * shape.m <= TORCH_SCORES_CAP:
                def torch_assign(x, c, cn, labels, mind):
                    xb, cb = (x, c) if shape.batched else (x.unsqueeze(0), c.unsqueeze(0))
                    cnb = cn if shape.batched else cn.unsqueeze(0)
                    lab = torch.argmin(cnb.unsqueeze(1) - 2.0 * torch.bmm(xb, cb.transpose(1, 2)).float(), dim=-1)
                    return (lab if shape.batched else lab[0]).to(torch.int32), None
                fns["torch"] = torch_assign
        return fns


def knn_paths(cake, shape):
    """{"small_ql0": variant, "small_ql1": variant, "small_ql0_wc": ..., "small_ql0_t": ..., "big": variant}:
    for each list layout of the knn_small library (QL = 0: per-thread lists, 1: quad lists; _wc: warps sharing
    query rows, WC > 1; _t: the shallow-ring builds for tiny corpora, S = 2) its variant of the shape's D with
    the smallest KK >= k, and the variant the knn library's table picks (a library that does not hold k or D is
    left out)."""
    import torch
    out = {}
    small = cake._library("knn_small", torch.bfloat16)
    if small is not None:
        for name in small.variants:
            ct = small.ct_params(name)
            kk, ql, wc = int(ct.get("KK", 10)), int(ct.get("QL", 0)), int(ct.get("WC", 1))
            if int(ct.get("HD", -1)) != shape.d or kk < shape.k:
                continue
            key = "small_ql%d%s%s" % (ql, "_wc" if wc > 1 else "", "_t" if int(ct.get("S", 3)) == 2 else "")
            if key not in out or kk < int(small.ct_params(out[key])["KK"]):
                out[key] = name
    big = cake._library("knn", torch.bfloat16)
    if big is not None:
        if not big.target:
            big.set_arch("sm_90a")
        name = big.variant_name(**shape.values)
        if name is not None and int(big.ct_params(name).get("KK", 0)) >= shape.k:
            out["big"] = name
    return out


def feasible_variants(cake, shape):
    """The library variants that can serve the shape on this device: the kernel's D (HD), KK >= k for KNN, an
    arch that runs here (sm_80 cubins do not run on 9.0)."""
    import torch
    library = cake._library("knn" if shape.op == "knn" else "kmeans_assign", torch.bfloat16)
    if library is None:
        return []
    major, _ = torch.cuda.get_device_capability()
    out = []
    for name in library.variants:
        arch = library._variant_docs[name].get("arch", "")     # the library.json entry of the variant
        if arch and not arch.startswith("sm_%d" % major):
            continue
        ct = library.ct_params(name)
        if int(ct.get("HD", -1)) != shape.d:
            continue
        if shape.op == "knn" and int(ct.get("KK", 10)) < shape.k:
            continue
        out.append(name)
    return out


# =========================================================================================== checks
def check_knn(torch, shape, x, c, dups, out, rows_per_batch=128):
    import knn_bench
    dist, idx = out
    xb, cb = (x, c) if shape.batched else (x.unsqueeze(0), c.unsqueeze(0))
    ib = idx if shape.batched else idx.unsqueeze(0)
    db = None if dist is None else (dist if shape.batched else dist.unsqueeze(0))
    rec = {"ok": True, "recall": 1.0, "checked_batches": []}
    if tuple(ib.shape) != (shape.b, shape.q, shape.k):
        return {"ok": False, "error": "indices of shape %s" % (tuple(ib.shape),)}
    poison = int((ib == -0x7ffffff0).sum().item())
    if db is not None:
        poison += int(torch.isnan(db).sum().item())
    rec["poison_left"] = poison
    for bi in sorted({0, shape.b - 1}):
        gen = torch.Generator(device=DEVICE).manual_seed(shape.q * 31 + bi)
        rows = torch.randperm(shape.q, generator=gen, device=DEVICE)[:rows_per_batch].sort().values
        r = knn_bench.check(torch, xb[bi], cb[bi], ib[bi], None if db is None else db[bi], rows, "l2", dups)
        rec["checked_batches"].append(bi)
        rec["recall"] = min(rec["recall"], r.get("recall", 0.0))
        for key in ("max_dist_err_over_tol", "tie_order_violations"):
            if key in r:
                rec[key] = max(rec.get(key, 0), r[key])
        rec["ok"] = rec["ok"] and r["ok"]
        if "error" in r:
            rec["error"] = r["error"]
    rec["ok"] = rec["ok"] and poison == 0
    return rec


def check_assign(torch, shape, x, c, cn, out, rows_per_batch=2048):
    import kmeans_assign_bench as kab
    labels, mind = out
    xb, cb = (x, c) if shape.batched else (x.unsqueeze(0), c.unsqueeze(0))
    cnb = cn if shape.batched else cn.unsqueeze(0)
    lb = labels if shape.batched else labels.unsqueeze(0)
    mb = None if mind is None else (mind if shape.batched else mind.unsqueeze(0))
    if tuple(lb.shape) != (shape.b, shape.q):
        return {"ok": False, "error": "labels of shape %s" % (tuple(lb.shape),)}
    poison = int((lb == -0x7ffffff0).sum().item()) + (0 if mb is None else int(torch.isnan(mb).sum().item()))
    rec = {"ok": poison == 0, "poison_left": poison, "wrong_labels": 0, "near_ties": 0, "dup_larger_index": 0,
           "checked_batches": []}
    for bi in sorted({0, shape.b - 1}):
        gen = torch.Generator(device=DEVICE).manual_seed(shape.q * 37 + bi)
        rows = torch.randperm(shape.q, generator=gen, device=DEVICE)[:rows_per_batch].sort().values
        m = mb[bi][rows] if mb is not None else torch.zeros(len(rows), device=DEVICE)
        r = kab.check_outputs(torch, xb[bi][rows], cb[bi], cnb[bi], lb[bi][rows], m)
        rec["checked_batches"].append(bi)
        for key in ("wrong_labels", "near_ties", "dup_larger_index", "out_of_range"):
            rec[key] = rec.get(key, 0) + r[key]
        if mb is not None:
            rec["dist_bad"] = rec.get("dist_bad", 0) + r["dist_bad"] + r["dist_nan"]
    rec["ok"] = rec["ok"] and rec["wrong_labels"] == 0 and rec["dup_larger_index"] == 0 and \
        rec.get("out_of_range", 0) == 0 and rec.get("dist_bad", 0) == 0
    return rec


# =========================================================================================== one shape
def runs_per_round(ms, n_fns, target_ms=40.0):
    """Timed runs of each function per round: about target_ms of GPU time per function over 3 rounds."""
    return max(1, min(8, int(target_ms / 3.0 / max(ms, 1e-3))))


def wall_us(torch, fn, ms):
    """Median over 3 batches of the wall time per call of back-to-back calls (host dispatch included)."""
    calls = max(1, min(20, int(5.0 / max(ms, 1e-3))))
    out = []
    for _ in range(3):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) / calls * 1e6)
    return sorted(out)[1]


def run_shape(torch, shape, impls, flusher, seed, args):
    import fragment_samples_common as common
    rec = {"shape": shape.label, "dims": shape.to_json(), "bucket": bucket(shape), "seed": seed, "checks": {},
           "timing": {}}
    fns = impls.for_shape(shape, variants=args.all_variants, paths=args.paths)
    if "cake" in fns and impls.cake is not None:
        try:
            route = impls.cake.knn_route(shape.b, shape.q, shape.m, shape.d, shape.k, torch.bfloat16, DEVICE) \
                if shape.op == "knn" else (None,)
            if route[0] == "assign":                            # Kernels.knn's choice
                rec["variant"] = "assign:" + route[1]
            elif route[0] == "small":
                rec["variant"] = "%s/splits=%d" % route[1:]
            elif shape.op == "knn":
                rec["variant"] = impls.cake._library("knn", torch.bfloat16).variant_name(**shape.values)
            else:
                rec["variant"] = impls.cake._library("kmeans_assign", torch.bfloat16).variant_name(**shape.values)
        except Exception as error:  # noqa: BLE001
            rec["variant_error"] = "%s: %s" % (type(error).__name__, error)
    timed = {}
    x, c, dups = make_inputs(torch, shape, seed)
    cn = (c.float() * c.float()).sum(-1)
    lead = (shape.b,) if shape.batched else ()
    for name, fn in fns.items():
        guard = common.InputGuard({"X": x, "C": c, "CN": cn})
        try:
            if shape.op == "knn":
                poison_pool(torch, [(lead + (shape.q, shape.k), torch.float32), (lead + (shape.q, shape.k), torch.int32)])
                out = fn(x, c)
                torch.cuda.synchronize()
                check = check_knn(torch, shape, x, c, dups, out)
            else:
                labels = common.poisoned(torch, lead + (shape.q,), torch.int32)
                mind = common.poisoned(torch, lead + (shape.q,), torch.float32)
                out = fn(x, c, cn, labels, mind)
                torch.cuda.synchronize()
                check = check_assign(torch, shape, x, c, cn, out)
            check["inputs_changed"] = guard.changed()
            check["ok"] = check["ok"] and not check["inputs_changed"]
            del out
            if shape.op == "knn":
                timed[name] = (lambda fn=fn: fn(x, c))
            else:
                labels = common.poisoned(torch, lead + (shape.q,), torch.int32)
                mind = common.poisoned(torch, lead + (shape.q,), torch.float32)
                timed[name] = (lambda fn=fn, labels=labels, mind=mind: fn(x, c, cn, labels, mind))
        except Exception as error:  # noqa: BLE001
            check = {"ok": False, "error": "%s: %s" % (type(error).__name__, str(error)[:400])}
        rec["checks"][name] = check
    if timed and not args.no_timing:
        # warm-up time of one call decides the runs per round
        first = {}
        for name, fn in timed.items():
            fn()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            first[name] = (time.perf_counter() - t0) * 1e3
        iters = runs_per_round(max(first.values()), len(timed))
        rec["timing"] = common.time_interleaved(torch, timed, flusher, 3, iters)
        for name, t in rec["timing"].items():
            common.add_rates(t, shape.flops, shape.nbytes)
            t["samples_ms"] = t["samples_ms"][:24]
            if not name.startswith(("variant:", "path:")):
                t["wall_us"] = wall_us(torch, timed[name], first[name])
    t = rec["timing"]
    if "cake" in t and "flashlib" in t:             # timed: flashlib ran (its check's verdict is recorded)
        rec["x_flashlib"] = t["flashlib"]["ms"] / t["cake"]["ms"]
        rec["x_flashlib_wall"] = t["flashlib"]["wall_us"] / t["cake"]["wall_us"]
    if "cake" in t and "torch" in t:
        rec["x_torch"] = t["torch"]["ms"] / t["cake"]["ms"]
    cake_checks = [v for n, v in rec["checks"].items() if n == "cake" or n.startswith(("variant:", "path:"))]
    rec["status"] = "ok" if cake_checks and all(v["ok"] for v in cake_checks) else \
        ("peers-only" if not cake_checks else "wrong")
    if any(v.get("below_floor") for n, v in t.items() if n == "cake"):
        rec["status"] = "below-floor"
    del x, c, cn, timed
    return rec


# =========================================================================================== precompile
def precompile_worker(args):
    """One of --compile-workers: calls flashlib once on its share of the shapes (Triton compiles and caches)."""
    import torch
    impls = Impls(torch, None, args.peers, False)
    todo = selected_shapes(args)
    index, count = (int(v) for v in args.precompile_worker.split("/"))
    deadline = time.time() + args.compile_budget
    done = 0
    for i, shape in enumerate(todo):
        if i % count != index or time.time() > deadline:
            continue
        lead = (shape.b,) if shape.batched else ()
        x = torch.zeros(lead + (shape.q, shape.d), dtype=torch.bfloat16, device=DEVICE)
        c = torch.ones(lead + (shape.m, shape.d), dtype=torch.bfloat16, device=DEVICE)
        fn = impls.for_shape(shape).get("flashlib")
        if fn is None:
            continue
        try:
            if shape.op == "knn":
                fn(x, c)
            else:
                cn = (c.float() ** 2).sum(-1)
                fn(x, c, cn, torch.empty(lead + (shape.q,), dtype=torch.int32, device=DEVICE), None)
            torch.cuda.synchronize()
            done += 1
        except Exception:  # noqa: BLE001  the measuring process records the error
            pass
    print("precompile worker %s: %d shapes" % (args.precompile_worker, done), flush=True)
    return 0


def precompile(args, argv):
    workers = args.compile_workers
    if workers <= 0:
        return {"workers": 0}
    t0 = time.time()
    base = [sys.executable, os.path.abspath(__file__)] + [a for a in argv if a != "--all-variants"]
    procs = [subprocess.Popen(base + ["--precompile-worker", "%d/%d" % (i, workers)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for i in range(workers)]
    lines = []
    for p in procs:
        try:
            out, _ = p.communicate(timeout=args.compile_budget + 60)
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
        lines += [ln for ln in (out or "").splitlines() if ln.startswith("precompile") or "Error" in ln][-3:]
    return {"workers": workers, "seconds": round(time.time() - t0, 1), "log": lines[-2 * workers:]}


# =========================================================================================== report
def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    i = (len(xs) - 1) * p / 100.0
    lo, hi = int(math.floor(i)), int(math.ceil(i))
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


HIST_EDGES = (0.0, 0.5, 0.9, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 6.0, float("inf"))


def summarize(records, op):
    recs = [r for r in records if r.get("dims", {}).get("op") == op]
    out = {"shapes": len(recs), "wrong": sum(1 for r in recs if r.get("status") == "wrong"),
           "errors": sum(1 for r in recs if r.get("status") == "error"),
           "skipped": sum(1 for r in recs if r.get("status") == "skipped"),
           "flashlib_failed": sum(1 for r in recs if "error" in r.get("checks", {}).get("flashlib", {})),
           "flashlib_inexact": sum(1 for r in recs if r.get("checks", {}).get("flashlib", {}).get("ok") is False
                                   and "error" not in r["checks"]["flashlib"])}
    for name, pick in (("all", lambda r: True), ("held_out", lambda r: r["dims"]["set"] in ("held_out", "tail")),
                       ("train", lambda r: r["dims"]["set"] == "train"), ("tail", lambda r: r["dims"]["set"] == "tail")):
        xs = [r["x_flashlib"] for r in recs if pick(r) and "x_flashlib" in r]
        ws = [r["x_flashlib_wall"] for r in recs if pick(r) and "x_flashlib_wall" in r]
        ts = [r["x_torch"] for r in recs if pick(r) and "x_torch" in r]
        out[name] = {"with_ratio": len(xs), "geomean_x_flashlib": geomean(xs), "min_x_flashlib": min(xs, default=None),
                     "below_0.9": sum(1 for x in xs if x < 0.9), "geomean_x_flashlib_wall": geomean(ws),
                     "min_x_flashlib_wall": min(ws, default=None), "geomean_x_torch": geomean(ts),
                     "percentiles_x_flashlib": {p: percentile(xs, p) for p in (0, 5, 10, 25, 50, 75, 90, 95, 100)},
                     "histogram_x_flashlib": [[lo, hi, sum(1 for x in xs if lo <= x < hi)]
                                              for lo, hi in zip(HIST_EDGES, HIST_EDGES[1:])]}
    return out


def markdown(document):
    import fragment_samples_common as common
    m = document["meta"]
    lines = ["# KNN and k-means assignment libraries vs flashlib (same process)", "",
             "- command: `%s`" % m.get("command"), "- date: %s; device: %s; torch %s" % (
                 m.get("date"), (m.get("device") or {}).get("name"), (m.get("device") or {}).get("torch")),
             "- x flashlib: flashlib median GPU ms / CAKE median GPU ms (events, L2 flushed, 3 interleaved rounds); "
             "wall: the same ratio of wall time per back-to-back call (host dispatch included)",
             "- peers not loaded: %s; flashlib precompile: %s" % (m.get("peer_errors") or "none",
                                                                  json.dumps(m.get("precompile"))), ""]
    for op in ("knn", "assign"):
        s = summarize(document["cases"], op)
        if not s["shapes"]:
            continue
        lines += ["## %s: %d shapes, %d wrong, %d errors, %d skipped; flashlib failed on %d, inexact on %d" % (
            op, s["shapes"], s["wrong"], s["errors"], s["skipped"], s["flashlib_failed"], s["flashlib_inexact"]), "",
                  common.table(["set", "shapes with ratio", "geomean x flashlib", "min", "< 0.9x", "geomean wall",
                                "min wall", "geomean x torch"],
                               [[n, s[n]["with_ratio"], common.fmt(s[n]["geomean_x_flashlib"], "%.3f"),
                                 common.fmt(s[n]["min_x_flashlib"], "%.3f"), s[n]["below_0.9"],
                                 common.fmt(s[n]["geomean_x_flashlib_wall"], "%.3f"),
                                 common.fmt(s[n]["min_x_flashlib_wall"], "%.3f"),
                                 common.fmt(s[n]["geomean_x_torch"], "%.3f")]
                                for n in ("all", "held_out", "train", "tail")]), "",
                  "Percentiles of x flashlib (held out): " + ", ".join(
                      "p%d %s" % (p, common.fmt(v, "%.2f")) for p, v in s["held_out"]["percentiles_x_flashlib"].items()),
                  "", "Histogram (held out): " + ", ".join(
                      "[%g, %g): %d" % (lo, hi, n) for lo, hi, n in s["held_out"]["histogram_x_flashlib"]), ""]
        buckets = {}
        for r in document["cases"]:
            if r.get("dims", {}).get("op") == op and "x_flashlib" in r:
                buckets.setdefault(r["bucket"], []).append(r["x_flashlib"])
        lines += ["### per bucket", "", common.table(
            ["bucket", "shapes", "geomean x flashlib", "min", "max"],
            [[b, len(v), "%.3f" % geomean(v), "%.3f" % min(v), "%.3f" % max(v)] for b, v in sorted(buckets.items())]), ""]
    rows = []
    for r in document["cases"]:
        t = r.get("timing", {})
        ms = lambda n: common.fmt(t.get(n, {}).get("ms"), "%.4f")  # noqa: E731
        bad = [n for n, v in r.get("checks", {}).items() if not v.get("ok")]
        rows.append([r["shape"], r.get("dims", {}).get("set"), r.get("variant", "-"), r.get("status"), ms("cake"),
                     ms("flashlib"), ms("torch"), common.fmt(r.get("x_flashlib"), "%.3f"),
                     common.fmt(r.get("x_flashlib_wall"), "%.3f"), ", ".join(bad) or "-",
                     (r.get("error") or "")[:80]])
    lines += ["## every shape", "", common.table(["shape", "set", "variant", "status", "CAKE ms", "flashlib ms",
                                                  "torch ms", "x flashlib", "x flashlib wall", "not ok", "error"],
                                                 rows)]
    return "\n".join(lines) + "\n"


# =========================================================================================== main
def selected_shapes(args):
    sets = set(args.sets.split(","))
    if "held_out" in sets:
        sets.add("tail")
    ops = set(args.libs.split(","))
    chosen = [s for s in shapes(args.seed) if s.set in sets and s.op in ops]
    # knn and assign alternate, each in a seeded shuffled order: a run cut short is a sample of both
    rng = random.Random(args.seed + 1)
    by_op = {op: [s for s in chosen if s.op == op] for op in ("knn", "assign")}
    for v in by_op.values():
        rng.shuffle(v)
    out = []
    for i in range(max(len(v) for v in by_op.values()) if chosen else 0):
        for op in ("knn", "assign"):
            if i < len(by_op[op]):
                out.append(by_op[op][i])
    return out[: args.limit or None]


def write_generalize_inputs(out_dir, all_shapes, times):
    for op, lib in LIB_NAMES.items():
        pick = lambda sets: [{n: s.values[n] for n in SHAPE_VARS[op]} for s in all_shapes  # noqa: E731
                             if s.op == op and s.set in sets]
        with open(os.path.join(out_dir, "train_%s.json" % lib), "w") as f:
            json.dump(pick({"train"}), f)
        with open(os.path.join(out_dir, "validate_%s.json" % lib), "w") as f:
            json.dump({"sets": {"held_out": pick({"held_out"}), "tail": pick({"tail"})}}, f)
        if times is not None:
            with open(os.path.join(out_dir, "times_%s.json" % lib), "w") as f:
                json.dump({"times": times.get(op, {}), "shapes": pick({"train"})}, f)


def write_candidates(spec_path, out_path, arch=None):
    """The generalization tool's CANDIDATES.json from a library spec: "dispatch" replaced by the spec's fallback
    variant, sources made absolute (so the file works from any folder).  arch: keep only the variants built
    for it (their "arch", else their source's `target`) and make it the only target; the fallback is
    then the last variant of the hand table built for it (the assignment library's sm_80 variants cannot be
    timed on an H200, and a table fitted without them would leave sm_80 with a fallback for one D only)."""
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    table = spec.pop("dispatch")
    if arch:
        def built_for(v):                          # "arch" of the variant, else its source's `target` line
            if v.get("arch"):
                return v["arch"]
            with open(os.path.join(os.path.dirname(os.path.abspath(spec_path)), v["source"]), encoding="utf-8") as f:
                found = re.search(r"^\s*target\s+(sm_[0-9a-z]+)", f.read(), re.M)
            return found.group(1) if found else None
        spec["variants"] = [v for v in spec["variants"] if built_for(v) == arch]
        spec["targets"] = [arch]
        names = {v["name"] for v in spec["variants"]}
        table = [e for e in table if e["variant"] in names]
        if not table:
            sys.exit("write_candidates: no variant of %s is built for %s" % (spec_path, arch))
        table[-1] = {"fallback": True, "variant": table[-1]["variant"]}
    fallback = next(e["variant"] for e in table if e.get("fallback"))
    spec["fallback"] = fallback
    base = os.path.dirname(os.path.abspath(spec_path))
    for v in spec["variants"]:
        v["source"] = os.path.join(base, v["source"])
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=1)
        f.write("\n")
    print("%s: %d candidates, fallback %s" % (out_path, len(spec["variants"]), fallback))
    return 0


def dry_run(args, chosen):
    entries = {}
    lib = os.path.join(args.cubins, "libcake_runtime.so")
    if "CAKE_RUNTIME_LIB" not in os.environ and os.path.isfile(lib):
        os.environ["CAKE_RUNTIME_LIB"] = lib
    try:
        import cakeir
        for op, lib in LIB_NAMES.items():
            path = os.path.join(args.cubins, lib)
            if os.path.isfile(os.path.join(path, "library.json")):
                entries[op] = cakeir.load_library(path, arch="sm_90a")
    except Exception as error:  # noqa: BLE001
        print("dry run: libraries not loaded (%s): no dispatch column" % error)
    counts = {}
    for s in chosen:
        counts[(s.op, s.set)] = counts.get((s.op, s.set), 0) + 1
        variant = entries[s.op].variant_name(**s.values) if s.op in entries else "-"
        print("%-8s %-44s %-10s %-16s %s" % (s.set, s.label, variant, "work 2^%.1f" % math.log2(s.work), bucket(s)))
    for (op, st), n in sorted(counts.items()):
        print("%s %s: %d shapes" % (op, st, n))
    print("dry run: %d shapes" % len(chosen))
    return 0


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"))
    p.add_argument("--cubins", default=DEFAULT_CUBINS, help="Kernels folder (library folders knn_bf16/, ...)")
    p.add_argument("--peers", default=DEFAULT_PEERS, help="folder holding flashlib/flashlib")
    p.add_argument("--sets", default="held_out", help="train, held_out (with the tails) or both, comma-separated")
    p.add_argument("--libs", default="knn,assign")
    p.add_argument("--all-variants", action="store_true")
    p.add_argument("--paths", action="store_true", help="KNN: also time Kernels.knn through both list layouts of knn_small and the knn library (knn_paths)")
    p.add_argument("--no-peers", action="store_true")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--limit", type=int, default=0, help="only the first N shapes of the run order")
    p.add_argument("--budget", type=float, default=420.0, help="seconds in all; later shapes are skipped")
    p.add_argument("--compile-workers", type=int, default=max(0, min(14, (os.cpu_count() or 2) - 2)))
    p.add_argument("--compile-budget", type=float, default=150.0)
    p.add_argument("--precompile-worker", help=argparse.SUPPRESS)
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--candidates", help="write CANDIDATES.json for cakeir.generalize from this spec (-o)")
    p.add_argument("--arch", help="with --candidates: only the variants built for this arch (sm_90a)")
    p.add_argument("-o", "--output")
    args = p.parse_args(argv)
    if args.candidates and not args.output:
        p.error("--candidates needs -o FILE")
    if not (args.dry_run or args.candidates or args.precompile_worker) and not args.out:
        p.error("--out DIR is required (or $OUT)")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.candidates:
        return write_candidates(args.candidates, args.output, args.arch)
    chosen = selected_shapes(args)
    if args.dry_run:
        return dry_run(args, chosen)
    if args.precompile_worker:
        return precompile_worker(args)
    start = time.time()
    try:
        import torch
        torch.zeros(1, device=DEVICE)
    except Exception as error:  # noqa: BLE001
        print("library_knn_bench.py: no GPU: %s" % error, file=sys.stderr)
        return 2
    import fragment_samples_common as common
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    os.makedirs(args.out, exist_ok=True)
    pre = precompile(args, argv) if not args.no_peers else {"workers": 0}
    impls = Impls(torch, args.cubins, args.peers, args.no_peers)
    document = {"format": "cake-library-knn-bench v1", "meta": common.meta(torch, args, {
        "peer_errors": impls.errors, "precompile": pre, "seed": args.seed, "sets": args.sets,
        "cubins": args.cubins, "staged": _read(os.path.join(os.path.dirname(args.cubins), "STAGED.txt"))}),
        "cases": []}
    flusher = common.L2Flusher(torch)
    jsonl = open(os.path.join(args.out, "library_knn.jsonl"), "w")
    times = {} if args.all_variants else None
    deadline = start + args.budget
    broken = None
    for i, shape in enumerate(chosen):
        if time.time() > deadline or broken:
            document["cases"].append({"shape": shape.label, "dims": shape.to_json(), "status": "skipped",
                                      "error": broken or "time budget used up"})
            continue
        try:
            record = run_shape(torch, shape, impls, flusher, args.seed * 1000 + i, args)
        except Exception as error:  # noqa: BLE001
            record = {"shape": shape.label, "dims": shape.to_json(), "status": "error",
                      "error": "%s: %s" % (type(error).__name__, error), "traceback": traceback.format_exc(limit=6)}
        if any("error" in v for v in record.get("checks", {}).values()) or record["status"] == "error":
            import measure
            if not measure.context_healthy():           # a sticky CUDA error: nothing after it can run
                broken = "the CUDA context broke at shape %d (%s)" % (i, shape.label)
        if times is not None:
            for name, t in record.get("timing", {}).items():
                if name.startswith("variant:") and record["checks"].get(name, {}).get("ok"):
                    times.setdefault(shape.op, {}).setdefault(name[len("variant:"):], {})[shape.key] = t["ms"]
            for name in _all_variant_names(impls, shape.op):
                row = times.setdefault(shape.op, {}).setdefault(name, {})
                row.setdefault(shape.key, math.inf)
        document["cases"].append(record)
        jsonl.write(json.dumps(record, default=str) + "\n")
        jsonl.flush()
        print("%4d %-46s %-9s %-10s %s" % (i, shape.label, record["status"], record.get("variant", "-"), "  ".join(
            "%s %.4f" % (n, t["ms"]) for n, t in record.get("timing", {}).items() if not n.startswith(("variant:", "path:")))
            + ("  x%.2f" % record["x_flashlib"] if "x_flashlib" in record else "")), flush=True)
        if i % 10 == 9 or i == len(chosen) - 1:
            _write(args.out, document, times)
        torch.cuda.empty_cache()
    document["meta"]["seconds"] = round(time.time() - start, 1)
    document["summary"] = {op: summarize(document["cases"], op) for op in ("knn", "assign")}
    _write(args.out, document, times)
    jsonl.close()
    print(json.dumps(document["summary"], indent=1, default=str))
    bad = [r for r in document["cases"] if r.get("status") in ("wrong", "error", "below-floor")]
    return 1 if bad else 0


def _all_variant_names(impls, op):
    import torch
    library = impls.cake._library("knn" if op == "knn" else "kmeans_assign", torch.bfloat16) if impls.cake else None
    return list(library.variants) if library is not None else []


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _write(out_dir, document, times):
    document["summary"] = {op: summarize(document["cases"], op) for op in ("knn", "assign")}
    with open(os.path.join(out_dir, "library_knn.json.tmp"), "w") as f:
        json.dump(document, f, indent=1, default=str)
    os.replace(os.path.join(out_dir, "library_knn.json.tmp"), os.path.join(out_dir, "library_knn.json"))
    with open(os.path.join(out_dir, "library_knn.md"), "w") as f:
        f.write(markdown(document))
    write_generalize_inputs(out_dir, shapes(document["meta"]["seed"]), times)


if __name__ == "__main__":
    sys.exit(main())
