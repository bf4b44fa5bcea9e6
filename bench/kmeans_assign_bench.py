#!/usr/bin/env python3
"""k-means assignment (fused distance + argmin) on the H200: correctness of samples/kmeans_assign.cake, with
the torch formulations timed in the same process for reference.

    bash bench/fragment_samples_build.sh                                     # development machine: bench/out/fragments/
    python3 bench/kmeans_assign_bench.py --dry-run                  # anywhere: cases, kernels, launch plans
    python3 bench/kmeans_assign_bench.py --out DIR [--peers-only]   # GPU machine: DIR/kmeans_assign.{json,md}

Problem: X bf16 [N, D] points, C bf16 [K, D] centroids, CN f32 [K] = ||c||^2 of the bf16 centroids (computed
by the caller in float32); outputs L i32 [N] = argmin_c ||x - c||^2 (ties: the smallest index) and
MinD f32 [N] = ||c_L||^2 - 2 x.c_L, the partial distance the argmin minimises (add ||x||^2 for the squared
distance).  Kernels: bench/out/fragments/kmeans_assign*.cubin; parameters bind by name X, C, CN, L, MinD (also
Labels / Dist); an HD compile-time parameter, when there is one, must equal D.

Inputs (fresh, seeded, per check): centroids standard normal with a few exact duplicates (row j copies row i
< j, so the tie rule is tested: a point whose label is the larger index of an identical pair is wrong), and
points clustered around random centroids (noise 0.05) mixed with uniform ones.  Check (reference: float32
distances ||x||^2 + ||c||^2 - 2 X C^T, TF32 off, argmin with the smallest index on ties):
  * no label left at the sentinel, every label in [0, K);
  * label == reference label, or a near tie: d(x, c_label) - d_min <= 1e-3 d_min + 1e-5 (||x||^2 + ||c||^2)
    (bf16 inputs with a different f32 summation order can flip labels whose distances differ by less than
    the rounding); near ties are counted and reported, anything else is wrong;
  * MinD within 1e-4 (||x||^2 + ||c_label||^2) + 1e-3 |ref| of the reference partial distance of the
    kernel's label;
  * inputs untouched; run kernel-first and (new seed) reference-first.
Peers timed (L2 flushed before each run): torch `argmin(CN - 2 (X @ C^T).float())` (bf16 GEMM) and
`torch.cdist(Xf, Cf).argmin(1)` (float32).
Exit: 0 all correct, 1 otherwise, 2 nothing could run."""

import argparse
import os
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)

import fragment_samples_common as common  # noqa: E402

TIE_REL = 1e-3
TIE_ABS_SCALE = 1e-5
DIST_ABS_SCALE = 1e-4
DIST_REL = 1e-3
REF_CHUNK_ELEMENTS = 1 << 28             # float32 distance-matrix elements per reference chunk
ALIASES = {"Labels": "L", "labels": "L", "Dist": "MinD", "D_min": "MinD", "dist": "MinD", "CNorm": "CN"}


class Shape:
    def __init__(self, n, k, d):
        self.n, self.k, self.d = n, k, d
        self.label = "N=%d K=%d D=%d" % (n, k, d)

    @property
    def flops(self):
        return 2 * self.n * self.k * self.d

    @property
    def nbytes(self):
        return 2 * (self.n + self.k) * self.d + 4 * self.k + 8 * self.n


def shapes():
    return [Shape(n, k, d) for n in (65536, 1000003) for k in (64, 256, 1000) for d in (64, 128)]


# =========================================================================================== inputs / reference
def make_inputs(torch, shape, seeds):
    """X clustered around centroids (half the points) and spread (the other half); C with exact duplicates."""
    gen, seed = seeds.generator(torch)
    c = torch.randn((shape.k, shape.d), generator=gen, device=common.DEVICE, dtype=torch.float32)
    dups = max(1, shape.k // 16)
    src = torch.randint(0, shape.k - 1, (dups,), generator=gen, device=common.DEVICE)
    dst = (src + 1 + torch.randint(0, shape.k, (dups,), generator=gen, device=common.DEVICE) % (shape.k - 1 - src))
    c[dst] = c[src]                                       # dst > src: the tie must go to src (or a smaller copy)
    c = c.to(torch.bfloat16)
    owner = torch.randint(0, shape.k, (shape.n,), generator=gen, device=common.DEVICE)
    noise = torch.randn((shape.n, shape.d), generator=gen, device=common.DEVICE, dtype=torch.float32)
    clustered = torch.rand((shape.n, 1), generator=gen, device=common.DEVICE) < 0.5
    x = torch.where(clustered, c[owner].float() + 0.05 * noise, noise * 1.5).to(torch.bfloat16)
    cn = (c.float() * c.float()).sum(1)
    return {"X": x, "C": c, "CN": cn}, seed


def distances(torch, x, c, cn):
    """float32 [rows, K] squared distances of the rows x to every centroid."""
    xf = x.float()
    s = torch.matmul(xf, c.float().t())
    return (xf * xf).sum(1, keepdim=True) + cn.unsqueeze(0) - 2.0 * s


def reference(torch, x, c, cn):
    """(labels int64 [N], partial min distance float32 [N]) in float32, chunked over N."""
    n, k = x.shape[0], c.shape[0]
    step = max(1, REF_CHUNK_ELEMENTS // k)
    labels = torch.empty(n, dtype=torch.int64, device=x.device)
    partial = torch.empty(n, dtype=torch.float32, device=x.device)
    for i in range(0, n, step):
        d = cn.unsqueeze(0) - 2.0 * torch.matmul(x[i:i + step].float(), c.float().t())
        m, idx = first_argmin(torch, d)
        labels[i:i + step], partial[i:i + step] = idx, m
    return labels, partial


def first_argmin(torch, d):
    """(min, the smallest column index attaining it) per row (explicit: does not rely on argmin's tie rule)."""
    m = d.min(dim=1).values
    cols = torch.arange(d.shape[1], device=d.device).expand_as(d)
    idx = torch.where(d == m.unsqueeze(1), cols, d.shape[1]).min(dim=1).values
    return m, idx


def check_outputs(torch, x, c, cn, labels, mind):
    """The check of (labels, mind) against the float32 reference: a record with ok, the counts, errors."""
    n, k = x.shape[0], c.shape[0]
    lab = labels.long()
    sentinel = int((labels == common.INT_SENTINEL).sum().item())
    out_of_range = int(((lab < 0) | (lab >= k)).sum().item()) - sentinel
    rec = {"n": n, "sentinel_left": sentinel, "out_of_range": out_of_range, "mismatch": 0, "near_ties": 0,
           "wrong_labels": 0, "dup_larger_index": 0, "dist_nan": int(torch.isnan(mind).sum().item()),
           "dist_bad": 0, "dist_max_err_scaled": 0.0}
    # identical centroid pairs: a label j with an identical row i < j breaks the tie rule
    first_copy = torch.arange(k, device=c.device)
    same = (c.unsqueeze(1) == c.unsqueeze(0)).all(-1) if k <= 4096 else None
    if same is not None:
        first_copy = torch.where(same, torch.arange(k, device=c.device).unsqueeze(0), k).min(1).values
    safe = lab.clamp(0, k - 1)
    step = max(1, REF_CHUNK_ELEMENTS // k)
    for i in range(0, n, step):
        d = distances(torch, x[i:i + step], c, cn)
        dmin, ref = first_argmin(torch, d)
        li = safe[i:i + step]
        valid = (lab[i:i + step] >= 0) & (lab[i:i + step] < k)
        mismatch = valid & (li != ref)
        d_l = d.gather(1, li.unsqueeze(1)).squeeze(1)
        xx = (x[i:i + step].float() ** 2).sum(1)
        tol = TIE_REL * dmin.clamp_min(0) + TIE_ABS_SCALE * (xx + cn[ref])
        near = mismatch & (d_l - dmin <= tol)
        dup = valid & (first_copy[li] != li)
        rec["mismatch"] += int(mismatch.sum().item())
        rec["near_ties"] += int((near & ~dup).sum().item())
        rec["wrong_labels"] += int((mismatch & ~near).sum().item())
        rec["dup_larger_index"] += int(dup.sum().item())
        partial = d_l - xx                                 # reference partial distance at the kernel's label
        scale = DIST_ABS_SCALE * (xx + cn[li]) + DIST_REL * partial.abs()
        err = (torch.nan_to_num(mind[i:i + step].float(), nan=float("inf")) - partial).abs()
        rec["dist_bad"] += int((valid & ~(err <= scale)).sum().item())
        worst = (err / scale)[valid]
        if worst.numel():
            rec["dist_max_err_scaled"] = max(rec["dist_max_err_scaled"], float(worst.max().item()))
        del d
    rec["ok"] = (sentinel == 0 and out_of_range == 0 and rec["wrong_labels"] == 0 and rec["dup_larger_index"] == 0
                 and rec["dist_nan"] == 0 and rec["dist_bad"] == 0)
    return rec


# =========================================================================================== kernels / peers
def select_kernels(kernels, shape):
    """Every kernel whose HD (if any) equals D: the -D SPLIT=1 builds get their own records."""
    return common.matching_kernels(kernels, {"HD": shape.d})


def select_kernel(kernels, shape):
    """The first of select_kernels, or None."""
    picks = select_kernels(kernels, shape)
    return picks[0] if picks else None


def cake_candidate(cake, path, manifest):
    kernel = next(iter(cake.load(path).kernels.values()))

    def run(x, c, cn, labels, mind):
        kernel(*common.bind(manifest, {"X": x, "C": c, "CN": cn, "L": labels, "MinD": mind}, ALIASES))
    return run


def peers(torch, x, c, cn):
    xf, cf = x.float(), c.float()
    return {"torch_mm_argmin": lambda: torch.argmin(cn.unsqueeze(0) - 2.0 * torch.matmul(x, c.t()).float(), dim=1),
            "torch_cdist_argmin": lambda: torch.cdist(xf, cf).argmin(dim=1)}


def check_candidate(torch, shape, candidate, seeds, reference_first):
    inputs, seed = make_inputs(torch, shape, seeds)
    x, c, cn = inputs["X"], inputs["C"], inputs["CN"]
    labels = common.poisoned(torch, (shape.n,), torch.int32)
    mind = common.poisoned(torch, (shape.n,), torch.float32)
    guard = common.InputGuard(inputs)
    if reference_first:
        reference(torch, x, c, cn)                       # the reference runs first (and its memory is freed)
    candidate(x, c, cn, labels, mind)
    torch.cuda.synchronize()
    changed = guard.changed()
    rec = check_outputs(torch, x, c, cn, labels, mind)
    rec.update(seed=seed, reference_first=reference_first, inputs_changed=changed)
    if changed:
        rec["ok"] = False
    return rec


def run_shape(torch, shape, candidate, seeds, flusher, timing=True, rounds=common.ROUNDS,
              iters=common.ITERS_PER_ROUND):
    record = {"shape": shape.label, "dims": {"N": shape.n, "K": shape.k, "D": shape.d}, "checks": [],
              "peer_checks": {}}
    if candidate is not None:
        record["checks"].append(check_candidate(torch, shape, candidate, seeds, False))
    inputs, _ = make_inputs(torch, shape, seeds)
    x, c, cn = inputs["X"], inputs["C"], inputs["CN"]
    fns = peers(torch, x, c, cn)
    for name, fn in fns.items():                         # the peers through the same check (labels only)
        labels = fn().to(torch.int32)
        rec = check_outputs(torch, x, c, cn, labels, torch.zeros(shape.n, device=x.device))
        record["peer_checks"][name] = {k: rec[k] for k in ("mismatch", "near_ties", "wrong_labels",
                                                           "dup_larger_index")}
    if timing:
        if candidate is not None:
            labels = common.poisoned(torch, (shape.n,), torch.int32)
            mind = common.poisoned(torch, (shape.n,), torch.float32)
            fns = dict(fns, cake=lambda: candidate(x, c, cn, labels, mind))
        record["timing"] = common.time_interleaved(torch, fns, flusher, rounds, iters)
        for t in record["timing"].values():
            common.add_rates(t, shape.flops, shape.nbytes)
    del inputs, x, c, cn, fns
    if candidate is not None:
        record["checks"].append(check_candidate(torch, shape, candidate, seeds, True))
    if any(t.get("below_floor") for t in record.get("timing", {}).values()):
        record["status"] = "below-floor"
    elif candidate is None:
        record["status"] = "peers-only"
    else:
        record["status"] = "ok" if all(c["ok"] for c in record["checks"]) else "wrong"
    return record


def markdown(document):
    rows = []
    for r in document["cases"]:
        t = r.get("timing", {})
        ch = r.get("checks", [])
        rows.append([r["shape"], r.get("kernel") or "-", r["status"],
                     sum(c["wrong_labels"] for c in ch) if ch else "-", sum(c["near_ties"] for c in ch) if ch else "-",
                     sum(c["dup_larger_index"] for c in ch) if ch else "-",
                     common.fmt(max((c["dist_max_err_scaled"] for c in ch), default=None), "%.2f"),
                     common.fmt(t.get("cake", {}).get("ms"), "%.4f"),
                     common.fmt(t.get("torch_mm_argmin", {}).get("ms"), "%.4f"),
                     common.fmt(t.get("torch_cdist_argmin", {}).get("ms"), "%.4f"),
                     "mm: %s near, %s wrong" % (r.get("peer_checks", {}).get("torch_mm_argmin", {}).get("near_ties"),
                                                r.get("peer_checks", {}).get("torch_mm_argmin", {}).get("wrong_labels")),
                     r.get("error", "")[:100]])
    m = document["meta"]
    text = ["# kmeans_assign (fused distance + argmin) correctness, torch peers timed", "",
            "- command: `%s`" % m.get("command"), "- date: %s; device: %s; torch %s" % (
                m.get("date"), (m.get("device") or {}).get("name"), (m.get("device") or {}).get("torch")),
            "- near tie: label differs from the float32 reference but d(x, c_label) - d_min <= 1e-3 d_min + "
            "1e-5 (|x|^2 + |c|^2); timing: median, L2 flushed before each run", "- seeds: %s" % m.get("seeds"), "",
            common.table(["shape", "kernel", "status", "wrong labels", "near ties", "dup larger index",
                          "MinD err / tol", "cake ms", "torch mm+argmin ms", "torch cdist+argmin ms",
                          "peer labels", "note"], rows)]
    return "\n".join(text) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"), help="folder for kmeans_assign.{json,md}")
    p.add_argument("--cubins", default=os.path.join(BENCH_DIR, "out", "fragments"), help="fragment_samples_build.sh's folder")
    p.add_argument("--peers-only", action="store_true", help="no CAKE kernel: the torch peers only")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--shapes", help="comma-separated 'N=.. K=.. D=..' labels (default: all)")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--rounds", type=int, default=common.ROUNDS)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--seed", type=int, default=11200)
    p.add_argument("--budget", type=float, default=200.0)
    args = p.parse_args(argv)
    if not args.dry_run and not args.out:
        p.error("--out DIR is required (or $OUT), unless --dry-run")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    wanted = args.shapes.split(",") if args.shapes else None
    chosen = [s for s in shapes() if not wanted or s.label in wanted]
    kernels = [] if args.peers_only else common.find_cubins(args.cubins, "kmeans_assign")
    if args.dry_run:
        for s in chosen:
            picks = select_kernels(kernels, s)
            print("%-24s %s" % (s.label, ", ".join(p[0] for p in picks) or "no kernel (peers only)"))
        print("dry run: %d shapes, %d kernel(s)" % (len(chosen), len(kernels)))
        return 0
    try:
        import torch
        torch.zeros(1, device=common.DEVICE)
    except Exception as error:  # noqa: BLE001
        print("kmeans_assign_bench.py: no GPU: %s" % error, file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cake = common.use_runtime(args.cubins) if kernels else None
    seeds = common.Seeds(args.seed)
    document = {"format": "cake-kmeans-assign-bench v1", "meta": common.meta(torch, args, {
        "rounds": args.rounds, "iters": args.iters, "peers_only": args.peers_only,
        "kernels": [{"name": n, "path": p, "ct_params": common.ct_params(m)} for n, p, m in kernels],
        "build": common.read_variants(args.cubins)}), "cases": []}
    flusher = common.L2Flusher(torch)
    deadline = time.time() + args.budget
    loaded = {}
    for shape, pick in [(s, p) for s in chosen for p in (select_kernels(kernels, s) or [None])]:
        if time.time() > deadline:
            document["cases"].append({"shape": shape.label, "status": "skipped", "error": "time budget used up"})
            continue
        try:
            candidate = None
            if pick is not None:
                loaded.setdefault(pick[1], cake_candidate(cake, pick[1], pick[2]))
                candidate = loaded[pick[1]]
            record = run_shape(torch, shape, candidate, seeds, flusher, not args.no_timing, args.rounds, args.iters)
        except Exception as error:  # noqa: BLE001
            record = {"shape": shape.label, "status": "error", "error": "%s: %s" % (type(error).__name__, error),
                      "traceback": traceback.format_exc(limit=5)}
        record["kernel"] = pick[0] if pick else None
        document["cases"].append(record)
        print("%-24s %-10s %s" % (shape.label, record["status"], ", ".join(
            "%s %.4f ms" % (n, t["ms"]) for n, t in record.get("timing", {}).items())), flush=True)
        torch.cuda.empty_cache()
    document["meta"]["seeds"] = seeds.used
    text = markdown(document)
    common.write(args.out, "kmeans_assign", document, text)
    print(text)
    bad = [r for r in document["cases"] if r["status"] not in ("ok", "peers-only", "skipped")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
