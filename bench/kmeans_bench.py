#!/usr/bin/env python3
"""k-means assignment on the H200: the CAKE kernels (kernels/kmeans/, built by bench/kmeans_build.sh) against
flashlib (FlashML) and flash-kmeans (Triton) and torch, in the same process.

    bash bench/kmeans_build.sh                                 # development machine: bench/out/kmeans/
    python3 bench/kmeans_bench.py --dry-run                    # anywhere: shapes, kernels, peers found
    python3 bench/kmeans_bench.py --out DIR --peers PEERS_DIR  # GPU machine: DIR/kmeans.{json,md}

PEERS_DIR holds the peers' Python sources as fetched (never committed): PEERS_DIR/flashlib/flashlib/...
(github FlashML-org/flashlib) and PEERS_DIR/flash-kmeans/flash_kmeans/... (github svg-project/flash-kmeans).
flashlib's CuTe-DSL backend is replaced by a stub module when cutlass is not installed, so that its Triton path
(flashlib.primitives.kmeans.triton.assign.euclid_assign_triton, the heuristic config) imports.

Problem: X [B, N, D] and C [B, K, D] bf16 or fp16; L [B, N] i32 = argmin_c ||x - c||^2 (ties: the smallest c).
Every function gets ||c||^2 precomputed in float32 (CAKE: padded with +inf to the kernel's KP columns; flashlib
and flash-kmeans: c_sq [B, K]; flash-kmeans also x_sq), so each is timed as the assignment kernel alone.
Check (every CAKE kernel and every peer, fresh seeded inputs: clustered points, exact duplicate centroids):
the float32 reference of bench/kmeans_assign_bench.py per batch (agreement = labels equal to the reference;
a mismatch within the near-tie tolerance is a tie within rounding, anything else is wrong); MinD against the
reference partial distance; inputs untouched; outputs poisoned before each run.
Timing: bench/fragment_samples_common.py (interleaved, L2 flushed, median); TFLOP/s = 2 B N K D / time;
the issue's floor is 790 TFLOP/s (the fraction of it is reported).
Exit: 0 all correct, 1 otherwise, 2 nothing could run."""

import argparse
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)

import fragment_samples_common as common  # noqa: E402
import peer_stubs  # noqa: E402
import kmeans_assign_bench as single  # noqa: E402

FLOOR_TFLOPS = 790.0
TORCH_SCORE_BYTES_MAX = 8 << 30          # torch bmm + argmin materialises B x N x K scores: skipped beyond this


class Shape:
    def __init__(self, b, n, k, d, dtype, timed=True):
        self.b, self.n, self.k, self.d, self.dtype, self.timed = b, n, k, d, dtype, timed
        self.label = "%dx%dx%dx%d %s" % (b, n, k, d, dtype)

    @property
    def flops(self):
        return 2 * self.b * self.n * self.k * self.d

    @property
    def nbytes(self):
        return self.b * (2 * (self.n + self.k) * self.d + 4 * self.k + 4 * self.n)


def shapes():
    return [Shape(32, 65536, 1024, 128, "bf16"), Shape(1, 1 << 20, 1024, 128, "fp16"),
            Shape(1, 4 << 20, 4096, 128, "fp16"), Shape(1, 1 << 20, 256, 64, "fp16"),
            Shape(8, 65536, 1000, 128, "fp16"),
            # ragged N, K and D = 256, correctness only
            Shape(3, 100003, 1000, 64, "bf16", False), Shape(2, 4097, 333, 256, "fp16", False),
            Shape(1, 129, 257, 128, "bf16", False)]


def torch_dtype(torch, name):
    return {"bf16": torch.bfloat16, "fp16": torch.float16}[name]


# =========================================================================================== inputs
def make_inputs(torch, shape, seeds):
    """X [B, N, D], C [B, K, D] of the shape's dtype (per batch: single.make_inputs, clustered points and exact
    duplicate centroids), cn [B, K] float32."""
    xs, cs, used = [], [], []
    dt = torch_dtype(torch, shape.dtype)
    for _ in range(shape.b):
        inputs, seed = single.make_inputs(torch, single.Shape(shape.n, shape.k, shape.d), seeds)
        xs.append(inputs["X"].to(dt))
        cs.append(inputs["C"].to(dt))
        used.append(seed)
    x, c = torch.stack(xs), torch.stack(cs)
    cn = (c.float() * c.float()).sum(-1)
    return x, c, cn, used


def padded_norms(torch, cn, kp):
    out = torch.full((cn.shape[0], kp), float("inf"), dtype=torch.float32, device=cn.device)
    out[:, :cn.shape[1]] = cn
    return out


def check(torch, x, c, cn, labels, mind=None):
    """Per-batch single.check_outputs summed; agreement = labels equal to the float32 reference."""
    total = {"n": 0, "mismatch": 0, "near_ties": 0, "wrong_labels": 0, "dup_larger_index": 0, "sentinel_left": 0,
             "out_of_range": 0, "dist_bad": 0, "dist_nan": 0, "dist_max_err_scaled": 0.0, "ok": True}
    for b in range(x.shape[0]):
        md = mind[b] if mind is not None else torch.zeros(x.shape[1], device=x.device)
        rec = single.check_outputs(torch, x[b], c[b], cn[b], labels[b], md)
        if mind is None:
            rec["ok"] = (rec["sentinel_left"] == 0 and rec["out_of_range"] == 0 and rec["wrong_labels"] == 0
                         and rec["dup_larger_index"] == 0)
            rec["dist_bad"] = rec["dist_nan"] = 0
        for key in total:
            if key == "ok":
                total["ok"] = total["ok"] and rec["ok"]
            elif key == "dist_max_err_scaled":
                total[key] = max(total[key], rec[key])
            else:
                total[key] += rec[key]
    total["agreement"] = 1.0 - total["mismatch"] / max(1, total["n"])
    return total


# =========================================================================================== candidates
def manifest_dtype(manifest):
    for p in (manifest.get("kernels") or [{}])[0].get("params", []):
        if p.get("name") == "X":
            return {"bf16": "bf16", "f16": "fp16"}.get(p.get("dtype"), p.get("dtype"))
    return None


def cake_kernels(folder):
    return common.find_cubins(folder, "kmeans_assign")


def usable(manifest, shape):
    ct = common.ct_params(manifest)
    return int(ct.get("HD", -1)) == shape.d and manifest_dtype(manifest) == shape.dtype


def cake_candidate(cake, path, manifest, shape):
    kernel = next(iter(cake.load(path).kernels.values()))
    ct = common.ct_params(manifest)
    bn = int(ct["BN"])
    kp = -(-shape.k // (2 * bn)) * 2 * bn

    def run(torch, x, c, cn, labels, mind):
        cnp = padded_norms(torch, cn, kp)
        kernel(*common.bind(manifest, {"X": x, "C": c, "CN": cnp, "L": labels, "MinD": mind}, {}))
    run.kp = kp
    return run


def load_peers(peers_dir):
    """{name: assign(x, c, cn, x_sq) -> labels [B, N]} for the peers that import, and {name: error}."""
    found, errors = {}, {}
    if not peers_dir:
        return found, {"flashlib": "no --peers folder", "flash-kmeans": "no --peers folder"}
    sys.path.insert(0, os.path.join(peers_dir, "flashlib"))
    sys.path.insert(0, os.path.join(peers_dir, "flash-kmeans"))
    peer_stubs.stub_peer_imports()
    try:
        from flashlib.primitives.kmeans.triton.assign import euclid_assign_triton as flashlib_assign
        found["flashlib"] = lambda x, c, cn, xsq: flashlib_assign(x, c, c_sq=cn)
    except Exception as error:  # noqa: BLE001
        errors["flashlib"] = "%s: %s" % (type(error).__name__, error)
    try:
        from flashlib.primitives.kmeans.triton.update import triton_centroid_update_sorted_euclid as fl_update
        found["update:flashlib"] = lambda x, labels, old: fl_update(x, labels, old)
        from flashlib.primitives.kmeans.triton.kmeans import _euclid_iter as fl_iter
        found["lloyd:flashlib"] = lambda x, xsq, c: fl_iter(x, c)[0]
    except Exception as error:  # noqa: BLE001
        errors["update:flashlib"] = "%s: %s" % (type(error).__name__, error)
    try:
        from flash_kmeans.assign_euclid_triton import euclid_assign_triton as fk_assign
        found["flash-kmeans"] = lambda x, c, cn, xsq: fk_assign(x, c, xsq, c_sq=cn)
        from flash_kmeans.centroid_update_triton import triton_centroid_update_sorted_euclid as fk_update
        found["update:flash-kmeans"] = lambda x, labels, old: fk_update(x, labels, old)
        from flash_kmeans.kmeans_triton_impl import _euclid_iter as fk_iter
        found["lloyd:flash-kmeans"] = lambda x, xsq, c: fk_iter(x, xsq, c)[0]
    except Exception as error:  # noqa: BLE001
        errors["flash-kmeans"] = "%s: %s" % (type(error).__name__, error)
    return found, errors


def torch_assign(torch):
    def run(x, c, cn, xsq):
        return torch.argmin(cn.unsqueeze(1) - 2.0 * torch.bmm(x, c.transpose(1, 2)).float(), dim=2)
    return run


def kernel_args(manifest, name, buffers):
    """The arguments of kernel `name` of a multi-kernel manifest, by parameter name."""
    for k in manifest.get("kernels", []):
        if k["name"] == name:
            return [buffers[p["name"]] for p in k["params"]]
    raise KeyError("%s: no kernel %s" % (manifest.get("cubin"), name))


def update_kernels(folder):
    return common.find_cubins(folder, "centroid_update")


def update_usable(manifest, shape):
    ct = common.ct_params(manifest)
    for k in manifest.get("kernels", []):
        if k["name"] == "centroid_accumulate_private" and "private" in (manifest.get("cubin") or ""):
            if shape.k > int(k.get("ct_params", {}).get("KMAX", 0)):
                return False
    dt = None
    for p in (manifest.get("kernels") or [{}])[0].get("params", []):
        if p.get("name") == "X":
            dt = {"bf16": "bf16", "f16": "fp16"}.get(p.get("dtype"))
    return int(ct.get("HD", -1)) == shape.d and dt == shape.dtype


def cake_update_candidates(torch, cake, path, manifest):
    """{name: update(x, labels, old) -> new centroids} of one centroid_update cubin: the sorted pipeline of
    cakeir.kmeans (zeroed sums and counts, histogram, offsets, scatter, segmented sums, finalize) and the atomic
    accumulation (centroid_accumulate, or centroid_accumulate_private for a _private build) + finalize; every
    step timed (the peers allocate and fill their buffers inside their call as well)."""
    name = os.path.basename(path)[:-len(".cubin")]
    module = cake.load(path)
    private = "PRIVATE" in name.upper() and "centroid_accumulate_private" in module.kernels
    accumulate = "centroid_accumulate_private" if private else "centroid_accumulate"
    acc, fin = module.kernels[accumulate], module.kernels["centroid_finalize"]

    def atomic(x, labels, old, new=None):
        b, k, d = old.shape
        sums = torch.zeros((b, k, d), dtype=torch.float32, device=x.device)
        counts = torch.zeros((b, k), dtype=torch.int32, device=x.device)
        new = torch.empty_like(old) if new is None else new
        bufs = {"X": x, "L": labels, "Sums": sums, "Counts": counts, "Old": old, "New": new}
        acc(*kernel_args(manifest, accumulate, bufs))
        fin(*kernel_args(manifest, "centroid_finalize", bufs))
        return new
    out = {name + (":private" if private else ":atomic"): atomic}
    if not private:
        from cakeir import kmeans as cake_kmeans
        library = cake_kmeans.Kernels(os.path.dirname(path))
        base = "centroid_update_%s_d%d" % (manifest_dtype(manifest).replace("fp16", "f16"),
                                           int(common.ct_params(manifest)["HD"]))
        variant = name[len(base):] if name.startswith(base) else ""
        out[name + ":sorted"] = lambda x, labels, old: library.centroid_update(x, labels, old, variant=variant)[0]
    return out


def update_reference(torch, x, labels, old):
    """float64 means of the points of each cluster (old centroid where a cluster is empty), and the counts."""
    b, k, d = old.shape
    sums = torch.zeros((b, k, d), dtype=torch.float64, device=x.device)
    counts = torch.zeros((b, k), dtype=torch.float64, device=x.device)
    for i in range(b):
        sums[i].index_add_(0, labels[i].long(), x[i].double())
        counts[i].index_add_(0, labels[i].long(), torch.ones(labels.shape[1], dtype=torch.float64, device=x.device))
    mean = sums / counts.clamp_min(1).unsqueeze(-1)
    return torch.where(counts.unsqueeze(-1) > 0, mean, old.double()), counts


def check_update(torch, new, ref, counts, old):
    """new within the rounding of its dtype (2^-7 relative for bf16, 2^-10 for fp16, of max(|ref|, mean |ref|
    of the row)) of the float64 reference; empty clusters bit-equal to the old centroid."""
    rel = 2.0 ** -7 if new.dtype == torch.bfloat16 else 2.0 ** -10
    scale = torch.maximum(ref.abs(), ref.abs().mean(-1, keepdim=True)) * rel + 1e-6
    err = (new.double() - ref).abs()
    empty = counts == 0
    bad = int((~(err <= scale)).sum().item())
    empty_changed = int((empty.unsqueeze(-1) & (new != old)).sum().item())
    return {"ok": bad == 0 and empty_changed == 0, "bad_elements": bad, "empty_clusters": int(empty.sum().item()),
            "empty_changed": empty_changed, "max_err_scaled": float((err / scale).max().item())}


def run_update(torch, shape, kernels, peers, seeds, flusher, args, x, labels, c):
    """The centroid update of one shape for the given labels (a few clusters emptied on purpose)."""
    labels = labels.clone()
    for e in range(0, shape.k, max(1, shape.k // 7)):       # clusters 0, K/7, 2K/7, ... lose their points
        labels[labels == e] = (e + 1) % shape.k
    rec = {"checks": {}, "timing": {}}
    ref, counts = update_reference(torch, x, labels, c)
    fns = {}
    guard = common.InputGuard({"X": x, "L": labels, "Old": c})
    for name, fn in list(kernels.items()) + [(n, f) for n, f in peers.items() if n.startswith("update:")]:
        try:
            new = fn(x, labels, c)
            torch.cuda.synchronize()
            rec["checks"][name] = check_update(torch, new, ref, counts, c)
            rec["checks"][name]["inputs_changed"] = guard.changed()
            fns[name] = (lambda fn=fn: fn(x, labels, c))
        except Exception as error:  # noqa: BLE001
            rec["checks"][name] = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
    if shape.timed and not args.no_timing and fns:
        rec["timing"] = common.time_interleaved(torch, fns, flusher, args.rounds, args.iters)
        nbytes = shape.b * (shape.n * (2 * shape.d + 4) + shape.k * shape.d * 4)
        for t in rec["timing"].values():
            common.add_rates(t, 0, nbytes)
    del ref, counts
    return rec


def run_lloyd(torch, shape, cubins, peers, flusher, args, x, xsq, c):
    """One Lloyd iteration (assignment, update, the largest centroid shift) of CAKE (cakeir.kmeans) and of the
    peers' own iteration functions, from the same centroids.  Check: CAKE's new centroids are the update of
    its own labels (float64 reference; its labels are checked by the assignment section)."""
    from cakeir import kmeans as cake_kmeans
    rec = {"checks": {}, "timing": {}}
    fns = {}
    try:
        library = cake_kmeans.Kernels(cubins)

        def cake_iter(x, xsq, c):
            labels, _ = library.assign(x, c)
            new, _ = library.centroid_update(x, labels, c)
            (new.float() - c.float()).norm(dim=-1).amax()
            return new, labels
        new, labels = cake_iter(x, xsq, c)
        ref, counts = update_reference(torch, x, labels, c)
        rec["checks"]["cake"] = check_update(torch, new, ref, counts, c)
        fns["cake"] = lambda: cake_iter(x, xsq, c)
        del ref, counts
    except Exception as error:  # noqa: BLE001
        rec["checks"]["cake"] = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
    for name, fn in peers.items():
        if name.startswith("lloyd:"):
            try:
                fn(x, xsq, c)
                fns[name] = (lambda fn=fn: fn(x, xsq, c))
            except Exception as error:  # noqa: BLE001
                rec["checks"][name] = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
    if shape.timed and not args.no_timing and fns:
        rec["timing"] = common.time_interleaved(torch, fns, flusher, args.rounds, args.iters)
    return rec


# =========================================================================================== one shape
def run_shape(torch, shape, kernels, peers, seeds, flusher, args):
    record = {"shape": shape.label, "dims": {"B": shape.b, "N": shape.n, "K": shape.k, "D": shape.d,
                                             "dtype": shape.dtype}, "checks": {}, "timing": {}}
    x, c, cn, used = make_inputs(torch, shape, seeds)
    xsq = (x.float() * x.float()).sum(-1)
    guard = common.InputGuard({"X": x, "C": c})
    fns = {}
    for name, cand in kernels.items():
        labels = common.poisoned(torch, (shape.b, shape.n), torch.int32)
        mind = common.poisoned(torch, (shape.b, shape.n), torch.float32)
        cand(torch, x, c, cn, labels, mind)
        torch.cuda.synchronize()
        rec = check(torch, x, c, cn, labels, mind)
        rec["inputs_changed"] = guard.changed()
        rec["ok"] = rec["ok"] and not rec["inputs_changed"]
        record["checks"][name] = rec
        out_l = common.poisoned(torch, (shape.b, shape.n), torch.int32)
        out_m = common.poisoned(torch, (shape.b, shape.n), torch.float32)
        fns[name] = (lambda cand=cand, l=out_l, m=out_m: cand(torch, x, c, cn, l, m))
    all_peers = dict(peers)
    if shape.b * shape.n * shape.k * 2 <= TORCH_SCORE_BYTES_MAX:
        all_peers["torch"] = torch_assign(torch)
    else:
        record["torch_skipped"] = "B*N*K scores do not fit the %d GiB limit" % (TORCH_SCORE_BYTES_MAX >> 30)
    for name, fn in all_peers.items():
        try:
            labels = fn(x, c, cn, xsq).to(torch.int32)
            torch.cuda.synchronize()
            record["checks"][name] = check(torch, x, c, cn, labels)
            fns[name] = (lambda fn=fn: fn(x, c, cn, xsq))
        except Exception as error:  # noqa: BLE001
            record["checks"][name] = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
    if shape.timed and not args.no_timing:
        record["timing"] = common.time_interleaved(torch, fns, flusher, args.rounds, args.iters)
        for t in record["timing"].values():
            common.add_rates(t, shape.flops, shape.nbytes)
            t["floor_fraction"] = t["tflops"] / FLOOR_TFLOPS if t.get("tflops") else None
    record["seeds"] = used
    updates = {}
    for _, path, manifest in args.update_kernels:
        if update_usable(manifest, shape):
            updates.update(cake_update_candidates(torch, args.cake, path, manifest))
    ref_labels, _ = zip(*[single.reference(torch, x[i], c[i], cn[i]) for i in range(shape.b)])
    record["update"] = run_update(torch, shape, updates, peers, seeds, flusher, args, x,
                                  torch.stack(ref_labels).to(torch.int32), c)
    if kernels and updates:
        record["lloyd"] = run_lloyd(torch, shape, args.cubins, peers, flusher, args, x, xsq, c)
    cake_ok = all(record["checks"][n]["ok"] for n in kernels) and all(
        record["update"]["checks"][n]["ok"] for n in updates) and record.get("lloyd", {}).get(
        "checks", {}).get("cake", {"ok": True})["ok"]
    below = any(t.get("below_floor") for t in record["timing"].values())
    record["status"] = "below-floor" if below else ("ok" if cake_ok else "wrong")
    if not kernels:
        record["status"] = "peers-only"
    del x, c, cn, xsq, fns
    return record


# =========================================================================================== report
def best_cake(record):
    t = record.get("timing", {})
    names = [n for n in t if n.startswith("kmeans_assign")]
    return min(names, key=lambda n: t[n]["ms"]) if names else None


def markdown(document):
    m = document["meta"]
    text = ["# k-means assignment: CAKE vs flashlib / flash-kmeans / torch (same process)", "",
            "- command: `%s`" % m.get("command"),
            "- date: %s; device: %s; torch %s" % (m.get("date"), (m.get("device") or {}).get("name"),
                                                 (m.get("device") or {}).get("torch")),
            "- timing: median of %s rounds x %s runs, L2 flushed before each run; TFLOP/s = 2BNKD / time; floor "
            "fraction = TFLOP/s / 790" % (m.get("rounds"), m.get("iters")),
            "- peers not loaded: %s" % (m.get("peer_errors") or "none"), ""]
    rows = []
    for r in document["cases"]:
        t = r.get("timing", {})
        best = best_cake(r)
        def ms(n):
            return common.fmt(t.get(n, {}).get("ms"), "%.4f")
        ratio = lambda peer: ("%.3f" % (t[peer]["ms"] / t[best]["ms"])) if best and peer in t else "-"
        ch = r.get("checks", {})
        agree = " ".join("%s %.5f" % (n, v["agreement"]) for n, v in ch.items() if "agreement" in v)
        wrong = sum(v.get("wrong_labels", 0) for n, v in ch.items() if n.startswith("kmeans_assign"))
        rows.append([r["shape"], r.get("status"), best or "-", ms(best) if best else "-",
                     common.fmt(t.get(best, {}).get("tflops"), "%.1f") if best else "-",
                     common.fmt(t.get(best, {}).get("floor_fraction"), "%.3f") if best else "-",
                     ms("flashlib"), ms("flash-kmeans"), ms("torch"), ratio("flashlib"), ratio("flash-kmeans"),
                     wrong, agree, r.get("error", "")[:80]])
    text.append(common.table(["shape", "status", "best CAKE kernel", "CAKE ms", "CAKE TFLOP/s", "of 790",
                              "flashlib ms", "flash-kmeans ms", "torch ms", "x flashlib", "x flash-kmeans",
                              "CAKE wrong labels", "agreement with fp32", "note"], rows))
    text += ["", "## centroid update (labels of the float32 reference, every K/7-th cluster emptied)", ""]
    urows = []
    for r in document["cases"]:
        u = r.get("update") or {}
        t = u.get("timing", {})
        cake_names = [n for n in t if n.startswith("centroid_update")]
        best = min(cake_names, key=lambda n: t[n]["ms"]) if cake_names else None
        ratio = lambda peer: ("%.3f" % (t[peer]["ms"] / t[best]["ms"])) if best and peer in t else "-"
        checks = " ".join("%s %s" % (n, "ok" if v.get("ok") else "WRONG %s" % (v.get("error") or v.get("bad_elements")))
                          for n, v in u.get("checks", {}).items())
        urows.append([r["shape"], best or "-", common.fmt(t.get(best, {}).get("ms"), "%.4f") if best else "-",
                      common.fmt(t.get("update:flashlib", {}).get("ms"), "%.4f"),
                      common.fmt(t.get("update:flash-kmeans", {}).get("ms"), "%.4f"),
                      ratio("update:flashlib"), ratio("update:flash-kmeans"), checks])
    text.append(common.table(["shape", "CAKE kernel", "CAKE ms", "flashlib ms", "flash-kmeans ms", "x flashlib",
                              "x flash-kmeans", "checks"], urows))
    text += ["", "## one Lloyd iteration (assignment + update + centroid shift, same starting centroids)", ""]
    lrows = []
    for r in document["cases"]:
        t = (r.get("lloyd") or {}).get("timing", {})
        if "cake" not in t:
            continue
        ratio = lambda peer: ("%.3f" % (t[peer]["ms"] / t["cake"]["ms"])) if peer in t else "-"
        lrows.append([r["shape"], common.fmt(t["cake"]["ms"], "%.4f"),
                      common.fmt(t.get("lloyd:flashlib", {}).get("ms"), "%.4f"),
                      common.fmt(t.get("lloyd:flash-kmeans", {}).get("ms"), "%.4f"),
                      ratio("lloyd:flashlib"), ratio("lloyd:flash-kmeans"),
                      "ok" if r["lloyd"]["checks"].get("cake", {}).get("ok") else "WRONG"])
    text.append(common.table(["shape", "CAKE ms", "flashlib ms", "flash-kmeans ms", "x flashlib", "x flash-kmeans",
                              "CAKE update of its labels"], lrows))
    text += ["", "## every CAKE variant (ms)", ""]
    names = sorted({n for r in document["cases"] for n in r.get("timing", {}) if n.startswith("kmeans_assign")})
    vrows = [[r["shape"]] + [common.fmt(r.get("timing", {}).get(n, {}).get("ms"), "%.4f") for n in names]
             for r in document["cases"] if r.get("timing")]
    if names:
        text.append(common.table(["shape"] + names, vrows))
    return "\n".join(text) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"), help="folder for kmeans.{json,md}")
    p.add_argument("--cubins", default=os.path.join(BENCH_DIR, "out", "kmeans"), help="kmeans_build.sh's folder")
    p.add_argument("--peers", help="folder with flashlib/ and flash-kmeans/ sources")
    p.add_argument("--peers-only", action="store_true")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--shapes", help="comma-separated shape labels (default: all)")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--rounds", type=int, default=common.ROUNDS)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--seed", type=int, default=15000)
    p.add_argument("--budget", type=float, default=400.0)
    args = p.parse_args(argv)
    if not args.dry_run and not args.out:
        p.error("--out DIR is required (or $OUT), unless --dry-run")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    wanted = args.shapes.split(",") if args.shapes else None
    chosen = [s for s in shapes() if not wanted or s.label in wanted]
    found = [] if args.peers_only else cake_kernels(args.cubins)
    if args.dry_run:
        for s in chosen:
            print("%-28s %s" % (s.label, ", ".join(n for n, _, m in found if usable(m, s)) or "no kernel"))
        print("dry run: %d shapes, %d kernel(s)" % (len(chosen), len(found)))
        return 0
    try:
        import torch
        torch.zeros(1, device=common.DEVICE)
    except Exception as error:  # noqa: BLE001
        print("kmeans_bench.py: no GPU: %s" % error, file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    args.update_kernels = [] if args.peers_only else update_kernels(args.cubins)
    cake = common.use_runtime(args.cubins) if (found or args.update_kernels) else None
    args.cake = cake
    peers, peer_errors = load_peers(args.peers)
    seeds = common.Seeds(args.seed)
    document = {"format": "cake-kmeans-bench v1", "meta": common.meta(torch, args, {
        "rounds": args.rounds, "iters": args.iters, "peer_errors": peer_errors,
        "kernels": [{"name": n, "ct_params": common.ct_params(m), "dtype": manifest_dtype(m)} for n, _, m in found],
        "build": common.read_variants(args.cubins)}), "cases": []}
    flusher = common.L2Flusher(torch)
    def one(shape):
        kernels = {n: cake_candidate(cake, p, m, shape) for n, p, m in found if usable(m, shape)}
        return run_shape(torch, shape, kernels, peers, seeds, flusher, args)
    common.run_cases(torch, document, chosen, one, args.budget)
    text = markdown(document)
    common.write(args.out, "kmeans", document, text)
    print(text)
    bad = [r for r in document["cases"] if r["status"] not in ("ok", "peers-only", "skipped")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
