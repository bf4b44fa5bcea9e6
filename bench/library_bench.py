#!/usr/bin/env python3
"""A GEMM kernel library on the device, shape by shape, against torch.matmul in the same process
(docs/library.md; protocol: /work/shared/reference/measurement.md).  Run on the GPU machine:

    bash bench/library_build.sh                      # here: build/libraries/gemm_bf16_sm90 (cakec library build)
    python3 bench/library_bench.py --library build/libraries/gemm_bf16_sm90 --out DIR [--all-variants]

For every shape (bf16, C = A . B^T, >= 60 shapes: squares 256..16384, LLM projections and MLPs, decode M <= 64,
K-heavy and K-light, odd N and K):
  - correctness (cakeir.measure, docs/measurement.md): fresh random inputs (seeded), C poisoned with NaN, the
    library's choice against float64-accumulated torch (cakeir.measure.gpu.compare_torch: relative error, wrong
    elements, poison survivors), inputs compared bit for bit with copies taken before the call
    (bit_equal_torch); the physical floor of the shape (cakeir.measure.floor on machines/h200.json: 2 M N K
    tensor flops, A and B read, C written) - a library time below it is counted as below_floor;
  - timing of the library call *with its dispatch* (Library.__call__: shape read, table lookup, launch) and of
    torch.matmul(a, b.t(), out=c): GPU time by events (median, bench/measure.py time_runs, which holds the stream
    so host time is excluded), and wall time per call of 200 back-to-back calls after a synchronize (host dispatch
    and launch included: what a caller sees for small shapes);
  - with --all-variants, every variant that accepts the shape, launched directly, checked like the library's
    choice (a wrong variant's time is infinite) and timed (median of 10-400 runs, about VARIANT_S seconds; once
    only when it is more than SLOW_VARIANT x torch; not
    run at all when its best throughput on earlier shapes of at least 1/RATE_WORK_RATIO of the work puts it above
    SKIP_VARIANT x torch - its time is then the time at that throughput and its check null; only runs longer than
    SKIP_MIN_MS are skipped):
    DIR/times.json, the training data of `python -m cakeir.generalize CANDIDATES --times DIR/times.json`.
Writes DIR/library_bench.json (every record, the device, the command) and prints one line per shape and the
geometric means (torch / library: > 1 means the library is faster)."""

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runtime", "python"))

import torch  # noqa: E402

import cakeir  # noqa: E402
import measure  # noqa: E402
from cakeir._dtypes import SIZES  # noqa: E402
from cakeir.measure import Work, floor, load_machine  # noqa: E402
from cakeir.measure.gpu import bit_equal_torch, compare_torch  # noqa: E402


def gemm_shapes():
    """(M, N, K) triples: at least 60, including every shape the GEMM issue names."""
    shapes = [(s, s, s) for s in (256, 512, 1000, 1024, 2048, 3072, 4096, 6144, 8192, 16384)]
    shapes += [(64, 4096, 4096), (2000, 3000, 1000), (4096, 4097, 4096), (4096, 255, 4096), (4096, 4096, 4099)]
    for tokens in (1, 16, 64, 512, 4096, 16384):              # LLM projections / MLP (7B/70B-like widths)
        shapes += [(tokens, 4096, 4096), (tokens, 11008, 4096), (tokens, 4096, 11008), (tokens, 8192, 28672)]
    shapes += [(m, 8192, 8192) for m in (1, 8, 32, 64)]       # decode
    shapes += [(1024, 1024, 65536), (256, 256, 131072), (128, 4096, 32768)]   # K-heavy
    shapes += [(16384, 16384, 64), (8192, 8192, 128), (4096, 16384, 256)]    # K-light
    shapes += [(1023, 1025, 1027), (333, 777, 999), (4097, 4097, 4097), (100, 10000, 7), (7, 7, 7)]  # odd
    shapes += [(128, 128, 128), (384, 384, 384), (1536, 1536, 1536)]                          # small squares
    shapes += [(8, 4096, 4096), (32, 11008, 4096), (1, 14336, 4096), (16, 14336, 4096)]      # decode
    shapes += [(2048, 2048, 16384)]                                                           # K-heavy
    shapes += [(2048, 2048, 64), (4096, 4096, 128)]                                           # K-light
    shapes += [(4095, 4096, 4096), (1, 4097, 4096), (2047, 2049, 2051), (64, 4096, 4100)]    # odd M, N, K
    seen, out = set(), []
    for s in shapes:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def held_out_shapes(count=32, seed=2026):
    """(M, N, K) triples the tables were never fitted to (--set held_out): M log-uniform in 1..64 (decode) for one
    shape in four, else in 128..16384; N and K log-uniform in 256..16384, one in four of them not a multiple of 8;
    M N K <= 2^37 (a few ms of torch at most); seeded so every run measures the same shapes, none of them a
    training shape."""
    import random
    rng = random.Random(seed)
    train, out = set(gemm_shapes()), []
    while len(out) < count:
        m = int(round(2 ** (rng.uniform(0, 6) if rng.random() < 0.25 else rng.uniform(7, 14))))
        n, k = (int(round(2 ** rng.uniform(8, 14))) for _ in range(2))
        n, k = (x if rng.random() < 0.25 else max(8, x // 8 * 8) for x in (n, k))
        if m * n * k <= 2 ** 37 and (m, n, k) not in train and (m, n, k) not in out:
            out.append((m, n, k))
    return out


def gemm_work(m, n, k):
    """The compulsory work of C = A . B^T in bf16: A and B read once, C written once, 2 M N K tensor flops."""
    return Work(read_bytes=2.0 * (m * k + n * k), write_bytes=2.0 * m * n, tensor_flops=2.0 * m * n * k)


SLOW_MS = 20.0   # a call slower than this (the SIMT fallback on a large shape) is timed 3 times, not 50+


def once_ms(fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def timed(fn):
    """bench/measure.py time_runs, or the median of 3 single runs for a call slower than SLOW_MS."""
    first = once_ms(fn)
    if first <= SLOW_MS:
        return measure.time_runs([fn])
    ms = sorted([first, once_ms(fn), once_ms(fn)])
    return {"ms": ms[1], "ms_min": ms[0], "iters": 3, "slow": True}


def wall_us(fn, calls=200):
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


SLOW_VARIANT = 3.0   # --all-variants: a variant whose first run takes > this x torch's time is not timed further
SLOW_VARIANT_MS = 0.5  # ... when that run also took this long: one event-timed launch carries the host's launch
                       # latency (~20 us), which would shut every variant of a tiny shape out of the timing
SKIP_VARIANT = 24.0  # ... and one whose best throughput so far puts it above this x torch's time and above
SKIP_MIN_MS = 20.0   # this many ms is not run at all (the rate comes from other kinds of shapes: only long runs
                     # are worth skipping on its word)
RATE_WORK_RATIO = 16  # ... the rate of shapes of at least 1/RATE_WORK_RATIO of the flops only: on a tiny shape a
                      # tiled kernel runs at a small fraction of its rate, which would skip it on large ones
VARIANT_S = 0.25     # ... the others are timed over about this many seconds of runs (10 to 400 runs; --variant-s)


WORKSPACE_LIMIT = 1 << 30  # --all-variants: a split-K variant whose f32 workspace would pass this is not run (at
                          # 16384^3 with 32 splits it would be 32 GiB); the table sends it only shapes with few tiles


def workspace_bytes(lib, kernel, m, n, k):
    """The bytes of the workspace a variant of several kernels allocates at this shape (0 for one kernel)."""
    shapes = getattr(kernel, "workspace_shapes", None)
    if shapes is None:
        return 0
    key = tuple({"M": m, "N": n, "K": k}[name] for name in lib.shape_vars)
    return sum(math.prod(dims) * SIZES[dtype] for dims, dtype in shapes(key))


def variant_record(kernel, a, b, c, ref, torch_ms, seconds):
    """One variant at one shape: its own correctness (C poisoned, compared with ref) and its GPU time; a wrong
    variant's time is infinite (the generalization must never choose it), a variant far slower than torch is
    timed once (it will not be chosen either)."""
    c.fill_(float("nan"))
    kernel(a, b, c)
    torch.cuda.synchronize()
    check = compare_torch(c, ref, tolerance=2e-2).to_json()
    if not check["ok"]:
        return {"ms": math.inf, "check": check}
    first = once_ms(lambda: kernel(a, b, c))
    if first > SLOW_VARIANT * torch_ms and first > SLOW_VARIANT_MS:
        return {"ms": first, "check": check, "timed_once": True}
    iters = max(10, min(400, int(seconds / max(first / 1e3, 1e-6))))
    return {"ms": measure.time_runs([lambda: kernel(a, b, c)], iters=iters)["ms"], "check": check}


def summarize(records):
    ok = [r for r in records if "speedup_gpu" in r]
    geo = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")  # noqa: E731
    return {"shapes": len(records), "refused": len(records) - len(ok),
            "incorrect": sum(1 for r in ok if not r["check"]["ok"] or not r["inputs_untouched"]),
            "below_floor": sum(1 for r in ok if r.get("below_floor")),
            "geomean_torch_over_library_gpu": geo([r["speedup_gpu"] for r in ok]),
            "geomean_torch_over_library_wall": geo([r["speedup_wall"] for r in ok]),
            "min_torch_over_library_gpu": min((r["speedup_gpu"] for r in ok), default=float("nan"))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--library", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--all-variants", action="store_true")
    ap.add_argument("--variants", default="",
                    help="with --all-variants: time only these variants (comma-separated names)")
    ap.add_argument("--set", choices=("train", "held_out"), default="train",
                    help="the shapes: gemm_shapes() (the tables are fitted to them) or held_out_shapes()")
    ap.add_argument("--held-out-seed", type=int, default=2026,
                    help="the seed of held_out_shapes(): a new seed draws shapes no table was ever fitted to")
    ap.add_argument("--shapes", default="",
                    help="time these shapes instead of a set: MxNxK,MxNxK,... (experiments; the set is recorded as 'shapes')")
    ap.add_argument("--variant-s", type=float, default=VARIANT_S,
                    help="with --all-variants: seconds of runs each variant is timed over at each shape")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--limit", type=int, default=0, help="only the first N shapes (smoke runs)")
    ap.add_argument("--budget-s", type=float, default=0.0,
                    help="start no new shape after this many seconds (0: no limit); the files are rewritten after "
                         "every shape, so a run cut short still leaves every finished shape")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()
    args.device = measure.device_info()
    lib = cakeir.load_library(args.library)
    gen = measure.generator(args.seed)
    machine = load_machine("h200")
    records, times, variant_checks = [], {}, {}
    rates = {}   # variant -> [(flops, flops per ms)] of the shapes it ran correctly so far
    if args.shapes:
        try:
            shapes = [tuple(int(x) for x in item.split("x")) for item in args.shapes.split(",")]
        except ValueError:
            ap.error("--shapes: expected MxNxK,MxNxK,... (positive integers), got %r" % args.shapes)
        if any(len(s) != 3 or min(s) < 1 for s in shapes):
            ap.error("--shapes: expected MxNxK,MxNxK,... (positive integers), got %r" % args.shapes)
        args.set = "shapes"
    else:
        shapes = gemm_shapes() if args.set == "train" else held_out_shapes(seed=args.held_out_seed)
    shapes = shapes[: args.limit or None]
    num_sms = torch.cuda.get_device_properties(0).multi_processor_count
    skipped = []
    only = set(args.variants.split(",")) if args.variants else None   # --variants
    for m, n, k in shapes:
        if args.budget_s and time.perf_counter() - started > args.budget_s:
            skipped.append([m, n, k])
            continue
        values = {"M": m, "N": n, "K": k}
        key = ",".join("%s=%d" % (name, values[name]) for name in lib.shape_vars)   # generalize.shape_key
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        copies = (a.clone(), b.clone())
        ref = torch.matmul(a.double(), b.double().t()) if m * n * k <= (1 << 33) else \
            torch.matmul(a.float(), b.float().t())
        rec = {"M": m, "N": n, "K": k, "variant": None}
        try:
            rec["variant"] = lib.variant_name(M=m, N=n, K=k)
            lib(a, b, c)
            torch.cuda.synchronize()
            rec["check"] = compare_torch(c, ref, tolerance=2e-2).to_json()
            rec["inputs_untouched"] = bit_equal_torch(a, copies[0]) and bit_equal_torch(b, copies[1])
            rec["library"] = timed(lambda: lib(a, b, c))
            rec["floor_ms"] = floor(gemm_work(m, n, k), machine).ms
            rec["below_floor"] = rec["library"]["ms"] < rec["floor_ms"]
            rec["library_wall_us"] = wall_us(lambda: lib(a, b, c), 3 if rec["library"].get("slow") else 200)
        except cakeir.CakeError as error:
            rec["error"] = str(error)
        out = torch.empty((m, n), device="cuda", dtype=torch.bfloat16)
        rec["torch"] = measure.time_runs([lambda: torch.matmul(a, b.t(), out=out)])
        rec["torch_wall_us"] = wall_us(lambda: torch.matmul(a, b.t(), out=out))
        if args.all_variants:
            rec["variants"] = {}
            for name, kernel in lib.variants.items():
                if only is not None and name not in only:
                    continue
                try:
                    if workspace_bytes(lib, kernel, m, n, k) > WORKSPACE_LIMIT:
                        raise cakeir.CakeRequirementError("workspace above the bench's limit")
                    kernel.plan(a, b, c, num_sms=num_sms)
                except cakeir.CakeError:
                    times.setdefault(name, {})[key] = math.inf
                    continue
                flops = 2.0 * m * n * k
                rate = max((r for f, r in rates.get(name, ()) if f * RATE_WORK_RATIO >= flops), default=None)
                if rate is not None and flops / rate > max(SKIP_VARIANT * rec["torch"]["ms"], SKIP_MIN_MS):
                    # not run (the SIMT fallback on a large shape would take seconds): its time at its best rate
                    # on shapes of comparable work, which keeps it out of any table; unchecked
                    times.setdefault(name, {})[key] = flops / rate
                    variant_checks.setdefault(name, {})[key] = None
                    rec["variants"][name] = {"ms": flops / rate, "ok": None, "not_run": True}
                    continue
                vr = variant_record(kernel, a, b, c, ref, rec["torch"]["ms"], args.variant_s)
                times.setdefault(name, {})[key] = vr["ms"]
                variant_checks.setdefault(name, {})[key] = vr["check"]["ok"]
                rec["variants"][name] = {"ms": vr["ms"], "ok": vr["check"]["ok"],
                                         "timed_once": vr.get("timed_once", False)}
                if vr["check"]["ok"] and vr["ms"] > 0:
                    rates.setdefault(name, []).append((flops, flops / vr["ms"]))
        if "library" in rec:
            rec["speedup_gpu"] = rec["torch"]["ms"] / rec["library"]["ms"]
            rec["speedup_wall"] = rec["torch_wall_us"] / rec["library_wall_us"]
        records.append(rec)
        print("%6d %6d %6d  %-20s %s  lib %.4f ms (wall %.1f us)  torch %.4f ms (wall %.1f us)  x%.2f" % (
            m, n, k, rec["variant"], "ok " if rec.get("check", {}).get("ok") else "BAD",
            rec.get("library", {}).get("ms", float("nan")), rec.get("library_wall_us", float("nan")),
            rec["torch"]["ms"], rec["torch_wall_us"], rec.get("speedup_gpu", float("nan"))), flush=True)
        del a, b, c, out, copies, ref
        torch.cuda.empty_cache()
        write_files(args, lib, records, skipped, times, variant_checks, shapes)
    summary = write_files(args, lib, records, skipped, times, variant_checks, shapes)
    print(json.dumps(summary, indent=1))


def write_files(args, lib, records, skipped, times, variant_checks, shapes):
    """library_bench.json (and times.json with --all-variants) as they stand: rewritten after every shape."""
    summary = summarize(records)
    summary["not_run_budget"] = skipped
    doc = {"command": " ".join(sys.argv), "device": args.device, "library": lib.name, "set": args.set,
           "entries": lib.entries, "summary": summary, "records": records}
    with open(os.path.join(args.out, "library_bench.json"), "w") as f:
        f.write(measure.dumps(doc))
    if args.all_variants:
        done = [{"M": r["M"], "N": r["N"], "K": r["K"]} for r in records]
        with open(os.path.join(args.out, "times.json"), "w") as f:
            json.dump({"times": times, "checks": variant_checks, "shapes": done}, f)
    return summary


if __name__ == "__main__":
    main()
