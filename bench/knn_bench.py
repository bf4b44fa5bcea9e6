#!/usr/bin/env python3
"""Brute-force KNN on the H200: CAKE (cakeir.kmeans.knn: kernels/kmeans/assign_sm90.cake's knn_topk + knn_merge,
built by bench/kmeans_build.sh) against flashlib's flash_knn_triton and torch, in the same process.

    bash bench/kmeans_build.sh                               # development machine: bench/out/kmeans/
    python3 bench/knn_bench.py --out DIR --peers PEERS_DIR   # GPU machine: DIR/knn.{json,md}

PEERS_DIR as for bench/kmeans_bench.py (PEERS_DIR/flashlib/flashlib: github FlashML-org/flashlib, never
committed).  Problem: queries X [Q, D], corpus C [M, D] bf16 or fp16 (B = 1), k = 10 nearest by squared L2.
flashlib returns the indices only; CAKE returns distances and indices (both sorted).
Check (fresh seeded inputs per check: half the queries near corpus points, exact duplicate corpus rows, so
ties occur): on a sample of query rows, the float32 reference distances of every corpus row; recall@k modulo
ties (a returned index counts when its reference distance is within the tie tolerance of the reference k-th
distance; tolerance 2^-12 (||x||^2 + max ||c||^2)), ties between exact duplicate rows to the smaller index,
indices distinct, CAKE's distances within the tolerance
of the reference distance of the index it returned, sorted ascending.  Inputs untouched, outputs poisoned.
Timing: bench/fragment_samples_common.py (interleaved, L2 flushed, median); TFLOP/s = 2 Q M D / time.
Exit: 0 all correct, 1 otherwise, 2 nothing could run."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fragment_samples_common as common  # noqa: E402
import kmeans_bench  # noqa: E402

K_NEIGHBOURS = 10
SAMPLE_ROWS = 1024                       # query rows checked against the float32 reference
TORCH_BYTES_MAX = 24 << 30               # torch's full distance matrix (f32 Q x M) must fit


class Shape:
    def __init__(self, q, m, d, timed=True, k=K_NEIGHBOURS, metric="l2", dtype="bf16"):
        self.q, self.m, self.d, self.timed, self.k, self.metric, self.dtype = q, m, d, timed, k, metric, dtype
        self.label = "%dx%dx%d %s" % (q, m, d, "fp16" if dtype == "f16" else dtype) + (
            "" if k == K_NEIGHBOURS else " k=%d" % k) + ("" if metric == "l2" else " " + metric)
        self.flops = 2.0 * q * m * d
        self.nbytes = 2.0 * (q + m) * d


def shapes():
    return [Shape(1024, 50000, 64), Shape(4096, 100000, 64), Shape(65536, 65536, 128), Shape(16384, 1000000, 128),
            # ragged, correctness only
            Shape(1000, 12345, 128, False), Shape(77, 3001, 256, False), Shape(300, 7, 64, False), Shape(129, 1000, 64, False),
            Shape(4096, 100000, 64, True, k=16), Shape(2048, 30000, 128, False, k=32), Shape(500, 20, 64, False, k=32),
            Shape(4096, 100000, 64, True, k=32), Shape(4096, 100000, 64, True, k=64),
            Shape(16384, 1000000, 128, True, k=64), Shape(1000, 12345, 128, False, k=64), Shape(100, 50, 64, False, k=64),
            Shape(77, 3001, 256, False, k=64), Shape(1, 1000000, 128, False, k=64),
            Shape(1, 1000000, 128, False), Shape(5, 10000000, 64, False),
            Shape(3000, 50000, 128, False, metric="ip"), Shape(17, 333, 256, False, k=16, metric="ip"),
            # fp16 inputs (the f16 builds), correctness only
            Shape(1000, 12345, 128, False, dtype="f16"), Shape(4096, 100000, 64, False, k=64, dtype="f16"),
            Shape(77, 3001, 256, False, k=32, dtype="f16"), Shape(5, 1000000, 64, False, k=16, metric="ip", dtype="f16")]


def make_inputs(torch, shape, seeds):
    """Corpus C with exact duplicate rows; queries: half near random corpus rows, half spread."""
    gen, seed = seeds.generator(torch)
    c = torch.randn((shape.m, shape.d), generator=gen, device=common.DEVICE)
    dups = max(1, shape.m // 16)
    src = torch.randint(0, shape.m, (dups,), generator=gen, device=common.DEVICE)
    dst = torch.randint(0, shape.m, (dups,), generator=gen, device=common.DEVICE)
    c[dst] = c[src]
    owner = torch.randint(0, shape.m, (shape.q,), generator=gen, device=common.DEVICE)
    noise = torch.randn((shape.q, shape.d), generator=gen, device=common.DEVICE)
    near = torch.rand((shape.q, 1), generator=gen, device=common.DEVICE) < 0.5
    x = torch.where(near, c[owner] + 0.05 * noise, noise)
    dtype = torch.float16 if shape.dtype == "f16" else torch.bfloat16
    c = c.to(dtype)
    first, second = torch.minimum(src, dst), torch.maximum(src, dst)
    same = (c[first] == c[second]).all(1) & (first != second)      # exact duplicate pairs (first < second)
    return x.to(dtype), c, (first[same], second[same]), seed


def check(torch, x, c, idx, dist, rows, metric="l2", dups=None):
    """recall@k modulo ties and distance accuracy on the query rows `rows` (dist None: indices only).  metric
    "ip": the reference is the negated inner product (smallest first) and CAKE's dist the inner product.
    dups: exact duplicate corpus pairs (first, second), first < second: their scores are bit-equal, so a list
    holding `second` must hold `first` too (ties go to the smaller index)."""
    xf, cf = x[rows].float(), c.float()
    if metric == "ip":
        ref = -(xf @ cf.t())
        if dist is not None:
            dist = -dist
    else:
        ref = (xf * xf).sum(1, keepdim=True) + (cf * cf).sum(1).unsqueeze(0) - 2.0 * xf @ cf.t()
    k = min(idx.shape[1], c.shape[0])            # past M the lists end with (+inf, -1)
    if k < idx.shape[1]:
        tail = idx[rows][:, k:]
        if not bool((tail == -1).all().item()):
            return {"ok": False, "error": "entries past M are not -1", "rows_checked": len(rows)}
        idx, dist = idx[:, :k], (dist[:, :k] if dist is not None else None)
    kth = ref.topk(k, dim=1, largest=False).values[:, -1:]
    tol = 2.0 ** -12 * ((xf * xf).sum(1, keepdim=True) + (cf * cf).sum(1).max())
    got = idx[rows].long()
    valid = (got >= 0) & (got < c.shape[0])
    got_ref = torch.gather(ref, 1, got.clamp(0, c.shape[0] - 1))
    hit = valid & (got_ref <= kth + tol)
    distinct = all(len(set(r)) == len(r) for r in got.tolist())
    # recall as a ratio of integers: torch's float32 mean multiplies by 1 / n, and 55 * (1 / 55) is 0.99999994
    out = {"rows_checked": len(rows), "recall": int(hit.sum().item()) / max(hit.numel(), 1), "distinct": distinct}
    if dups is not None and len(dups[0]):
        partner = torch.full((c.shape[0],), -1, dtype=torch.long, device=got.device)
        partner[dups[1]] = dups[0]
        p = partner[got.clamp(0, c.shape[0] - 1)]                    # the smaller twin of each returned index
        need = valid & (p >= 0)
        present = (p.unsqueeze(2) == got.unsqueeze(1)).any(2)
        out["tie_order_violations"] = int((need & ~present).sum().item())
    if dist is not None:
        d = dist[rows]
        out["max_dist_err_over_tol"] = float(((d - got_ref).abs() / tol).max().item())
        out["sorted"] = bool((d[:, 1:] >= d[:, :-1]).all().item())
    out["ok"] = out["recall"] == 1.0 and distinct and out.get("max_dist_err_over_tol", 0.0) <= 1.0 and \
        out.get("sorted", True) and out.get("tie_order_violations", 0) == 0
    return out


def load_peers(peers_dir):
    found, errors = {}, {}
    kmeans_bench.load_peers(peers_dir)              # puts the peers on sys.path, stubs tqdm / CuTe-DSL
    try:
        from flashlib.primitives.knn.triton.dispatch import flash_knn_triton
        found["flashlib"] = lambda x, c, k: flash_knn_triton(x.unsqueeze(0), c.unsqueeze(0), k)[0]
    except Exception as error:  # noqa: BLE001
        errors["flashlib"] = "%s: %s" % (type(error).__name__, error)
    return found, errors


def torch_knn(torch):
    def run(x, c, k):
        cn = (c.float() * c.float()).sum(1)
        return torch.topk(cn.unsqueeze(0) - 2.0 * (x @ c.t()).float(), k, dim=1, largest=False).indices
    return run


def run_shape(torch, shape, library, peers, seeds, flusher, args):
    record = {"shape": shape.label, "dims": {"Q": shape.q, "M": shape.m, "D": shape.d}, "checks": {}, "timing": {}}
    fns = {}
    cands = {}
    if library is not None:
        cands["cake"] = lambda x, c, k: library.knn(x, c, k, shape.metric)
        # other builds for the same k: knn_sm90_<dtype>_d<D>[_k<k>]_<name> (_ql, ...), as cake:<name>
        stem = "knn_sm90_%s_d%d" % (shape.dtype, shape.d)
        base = stem + ("" if shape.k == K_NEIGHBOURS else "_k%d" % shape.k) + "_"
        for name in sorted(os.listdir(args.cubins)):
            rest = name[len(base):-len(".cubin")]
            if name.startswith(base) and name.endswith(".cubin") and not rest.startswith("k"):
                variant = name[len(stem):-len(".cubin")]
                cands["cake:" + rest] = (
                    lambda x, c, k, variant=variant: library.knn(x, c, k, shape.metric, variant=variant))
    all_peers = dict(peers) if shape.metric == "l2" else {}       # flashlib's KNN and torch's: L2 only
    if shape.q * shape.m * 4 * 2 <= TORCH_BYTES_MAX and shape.metric == "l2":
        all_peers["torch"] = torch_knn(torch)
    for name, fn in list(cands.items()) + list(all_peers.items()):
        results = []
        for _ in range(2):                        # two checks, fresh inputs each
            x, c, dups, seed = make_inputs(torch, shape, seeds)
            guard = common.InputGuard({"X": x, "C": c})
            try:
                out = fn(x, c, shape.k)
                torch.cuda.synchronize()
                dist, idx = out if isinstance(out, tuple) else (None, out)
                gen = torch.Generator(device=common.DEVICE).manual_seed(seed)
                rows = torch.randperm(shape.q, generator=gen, device=common.DEVICE)[:SAMPLE_ROWS].sort().values
                rec = check(torch, x, c, idx, dist, rows, shape.metric, dups)
                rec.update(seed=seed, inputs_changed=guard.changed())
                rec["ok"] = rec["ok"] and not rec["inputs_changed"]
            except Exception as error:  # noqa: BLE001
                rec = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
            results.append(rec)
        record["checks"][name] = {"ok": all(r["ok"] for r in results), "runs": results}
        if all("error" not in r for r in results):          # timed even when not exact (torch's bf16 GEMM)
            fns[name] = (lambda fn=fn, x=x, c=c: fn(x, c, shape.k))
    if shape.timed and not args.no_timing and fns:
        record["timing"] = common.time_interleaved(torch, fns, flusher, args.rounds, args.iters)
        for t in record["timing"].values():
            common.add_rates(t, shape.flops, shape.nbytes)
    cake_ok = all(v["ok"] for n, v in record["checks"].items() if n.startswith("cake")) and (
        library is None or "cake" in record["checks"])
    record["status"] = "ok" if cake_ok else "wrong"
    return record


def markdown(document):
    m = document["meta"]
    text = ["# KNN (k = %d unless the shape says, squared L2, bf16 unless fp16): CAKE vs flashlib flash_knn_triton / torch (same process)" % K_NEIGHBOURS,
            "", "- command: `%s`" % m.get("command"),
            "- date: %s; device: %s; torch %s" % (m.get("date"), (m.get("device") or {}).get("name"),
                                                 (m.get("device") or {}).get("torch")),
            "- timing: median of %s rounds x %s runs, L2 flushed before each run; TFLOP/s = 2QMD / time"
            % (m.get("rounds"), m.get("iters")),
            "- peers not loaded: %s" % (m.get("peer_errors") or "none"), ""]
    rows = []
    for r in document["cases"]:
        t = r.get("timing", {})
        ms = lambda n: common.fmt(t.get(n, {}).get("ms"), "%.4f")
        ratio = lambda peer: ("%.3f" % (t[peer]["ms"] / t["cake"]["ms"])) if "cake" in t and peer in t else "-"
        def verdict(v):
            if any("error" in x for x in v["runs"]):
                return "ERROR %s" % next(x["error"] for x in v["runs"] if "error" in x)
            return "%s recall %.4f" % ("ok" if v["ok"] else "INEXACT", min(x["recall"] for x in v["runs"]))
        checks = " ".join("%s %s" % (n, verdict(v)) for n, v in r.get("checks", {}).items())
        rows.append([r["shape"], r.get("status"), ms("cake"), common.fmt(t.get("cake", {}).get("tflops"), "%.1f"),
                     ms("flashlib"), ms("torch"), ratio("flashlib"), ratio("torch"), checks[:300]])
    text.append(common.table(["shape", "status", "CAKE ms", "CAKE TFLOP/s", "flashlib ms", "torch ms", "x flashlib",
                              "x torch", "checks (min recall over the checks)"], rows))
    return "\n".join(text) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"), help="folder for knn.{json,md}")
    p.add_argument("--peers", default=None, help="folder with the peers' sources")
    p.add_argument("--cubins", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "kmeans"))
    p.add_argument("--shapes", default=None, help="comma-separated shape labels (default: all)")
    p.add_argument("--rounds", type=int, default=common.ROUNDS)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--seed", type=int, default=20261202)
    p.add_argument("--budget", type=float, default=300.0, help="seconds; later shapes are skipped")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--peers-only", action="store_true")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    wanted = args.shapes.split(",") if args.shapes else None
    chosen = [s for s in shapes() if not wanted or s.label in wanted]
    try:
        import torch
        torch.zeros(1, device=common.DEVICE)
    except Exception as error:  # noqa: BLE001
        print("knn_bench.py: no GPU: %s" % error, file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    library = None
    if not args.peers_only:
        common.use_runtime(args.cubins)
        from cakeir import kmeans as cake_kmeans
        library = cake_kmeans.Kernels(args.cubins)
    peers, peer_errors = load_peers(args.peers)
    seeds = common.Seeds(args.seed)
    document = {"format": "cake-knn-bench v1", "meta": common.meta(torch, args, {
        "rounds": args.rounds, "iters": args.iters, "peer_errors": peer_errors, "k": K_NEIGHBOURS}), "cases": []}
    flusher = common.L2Flusher(torch)
    common.run_cases(torch, document, chosen,
                     lambda shape: run_shape(torch, shape, library, peers, seeds, flusher, args), args.budget)
    text = markdown(document)
    common.write(args.out, "knn", document, text)
    print(text)
    bad = [r for r in document["cases"] if r["status"] not in ("ok", "skipped")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
