#!/usr/bin/env python3
"""Variant sweep on the GPU: correctness and time of every compile-time variant built by bench/sweep_build.sh,
at several shapes, written in the cost model's measurements format for the held-out evaluation
(bench/evaluate_cost_model.py, docs/cost-model.md section 5).

    bash bench/build.sh && bash bench/sweep_build.sh              # development machine: cubins -> bench/out/sweep
    python3 bench/sweep_bench.py --dry-run                        # anywhere: plan every case (no GPU, no torch)
    python3 bench/sweep_bench.py --out DIR                        # GPU machine: DIR/{measurements.json,results.json,sweep.md}

Cases are (variant, shape): the shapes of a variant's family (SHAPES below) that its `requires` accepts (the
runtime's launch planner decides, so ragged shapes go only where the kernel allows them).  Per case, with the
helpers of bench/measure.py and the case classes of bench/cases.py (buffers, launches, references): fresh
random inputs, NaN-poisoned outputs, one launch, relative error against the float32/float64 torch reference;
a wrong case is reported and left out of measurements.json.  Then the GPU time: CUDA events around each run,
median of >= MIN_RUNS runs after warm-up (measure.time_runs: the stream is held while the host enqueues, and
buffer sets rotate when one run's data fits in L2).

Process layout as in bench/run_bench.py: this process needs no torch; a worker subprocess runs the cases and
journals one JSON line each; when a variant breaks the CUDA context or hangs, the worker is restarted at the
next case.  Outputs: results.json (a cake-bench document, so bench/results_to_measurements.py reads it),
measurements.json (cake-measurements v1, what `cakec calibrate` reads; every case pins all compile-time
values of its variant), sweep.md (the table)."""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import cases as case_defs  # noqa: E402
import run_bench  # noqa: E402  (runtime loading, journal, rate/format helpers)

MIN_RUNS = 25                 # timed runs per case at least (measure.time_runs adapts upwards for short kernels)
DEFAULT_BUDGET_S = 200.0      # cases left when this is used up are skipped (the device call allows 4 minutes)

G = lambda m, n, k: dict(M=m, N=n, K=k)      # noqa: E731
# Shapes per family: (label, dims, which variants get it: None = all of them, (period, phase) = the variants
# whose index in the family is phase mod period).  Every variant runs at the first shape (the ranking of
# variants at one shape), and the others rotate, which keeps the sweep under ~100 cases (< 4 minutes) while
# every family is seen at 3-4 shapes.
SHAPES = {
    "gemm": [("4096^3", G(4096, 4096, 4096), None),
             ("8192x8192x4096", G(8192, 8192, 4096), (3, 0)),
             ("2048^3", G(2048, 2048, 2048), (3, 1)),
             ("4096x4096x1024", G(4096, 4096, 1024), (3, 2))],
    "row_softmax": [("16384x4096", dict(R=16384, C=4096), None),
                    ("65536x1024", dict(R=65536, C=1024), None),
                    ("4096x8192", dict(R=4096, C=8192), (2, 0))],
    "vector_add": [("N=2^28", dict(N=1 << 28), None), ("N=2^24", dict(N=1 << 24), None),
                   ("N=3000017", dict(N=3000017), (2, 1))],
}
FAMILY = {"hopper_gemm_persistent": "gemm", "hopper_gemm": "gemm", "ampere_gemm": "gemm",
          "row_softmax": "row_softmax", "vector_add": "vector_add"}


# =========================================================================================== the plan
def read_variants(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != "cake-sweep-variants":
        raise SystemExit("sweep_bench.py: %s is not a sweep_build.sh variants list" % path)
    return doc


def make_plan(variants_doc, cake):
    """[(item)]: one per (variant, shape) whose requires accept the shape; identical in every process.
    Also returns the variants that are not runnable and the shapes refused per variant (for the report)."""
    plan, skipped = [], []
    index_in_family = {}
    for v in variants_doc["variants"]:
        if not v["status"].startswith("ok"):
            skipped.append(dict(v, reason=v["status"] + (": " + v["detail"] if v.get("detail") else "")))
            continue
        family = FAMILY.get(v["sample"])
        cubin = os.path.join(REPO, v["cubin"])
        if family is None or not os.path.isfile(cubin) or not os.path.isfile(cubin + ".json"):
            skipped.append(dict(v, reason="no cubin or no shapes for sample %s" % v["sample"]))
            continue
        nth = index_in_family.get(family, 0)
        index_in_family[family] = nth + 1
        manifest = run_bench.read_json(cubin + ".json")
        case = case_defs.CASES_BY_SAMPLE[v["sample"]](manifest, cake)
        module = cake.load(cubin)
        dtype = next(d for k, d in case.variants() if k == v["kernel"])
        for label, dims, which in SHAPES[family]:
            if which is not None and nth % which[0] != which[1]:
                continue
            shape = case_defs.Shape(label, **dims)
            if not accepts(cake, case, module, v["kernel"], shape, dtype):
                continue
            ct = dict(manifest["kernels"][0].get("ct_params", {}))
            for k in manifest["kernels"]:
                if k["name"] == v["kernel"]:
                    ct = dict(k.get("ct_params", {}))
            plan.append({"variant": v["name"], "sample": v["sample"], "kernel": v["kernel"], "dtype": dtype,
                         "arch": v["arch"], "cubin": cubin, "defines": ct, "verified": v["status"] == "ok",
                         "shape": label, "dims": dims})
    for i, item in enumerate(plan):
        item["id"] = i
    return plan, skipped


def accepts(cake, case, module, kernel, shape, dtype):
    """Whether the runtime's planner accepts the shape (fake device addresses; no GPU)."""
    fake = run_bench.fake_buffers(cake, case.buffers(shape, dtype))
    try:
        for k, args in case.calls(kernel, shape, fake):
            module[k].plan(*args, num_sms=132)
    except cake.CakeRequirementError:
        return False
    return True


def dry_run(args, cake):
    plan, skipped = make_plan(read_variants(args.variants), cake)
    for item in plan:
        print("CASE  %-30s %-16s %s" % (item["variant"], item["shape"], " ".join("%s=%s" % kv for kv in item["defines"].items())))
    for v in skipped:
        print("SKIP  %-30s %s" % (v["name"], v["reason"]))
    print("dry run: %d cases of %d variants (%d variants skipped)" % (
        len(plan), len({i["variant"] for i in plan}), len(skipped)))
    return 0


# =========================================================================================== worker
def run_case(item, cake, modules, seeds):
    import measure
    import torch
    if item["cubin"] not in modules:
        manifest = run_bench.read_json(item["cubin"] + ".json")
        modules[item["cubin"]] = (case_defs.CASES_BY_SAMPLE[item["sample"]](manifest, cake), cake.load(item["cubin"]))
    case, module = modules[item["cubin"]]
    shape = case_defs.Shape(item["shape"], **item["dims"])
    specs = case.buffers(shape, item["dtype"])
    calls = lambda bs: [(module[k], a) for k, a in case.calls(item["kernel"], shape, bs.tensors)]  # noqa: E731

    def runner(bs):
        bound = calls(bs)

        def run():
            for kernel, call_args in bound:
                kernel(*call_args)
        return run

    sets = [measure.BufferSet(specs) for _ in range(measure.set_count(specs))]
    for s in sets:
        s.refill(case, measure.generator(next(seeds)))          # fresh random inputs, NaN-poisoned outputs
    runs = [runner(s) for s in sets]
    runs[0]()
    torch.cuda.synchronize()
    reference = case.reference(torch, shape, sets[0].tensors)
    checks = []
    for name, spec in specs.items():
        if spec.role == "out":
            c = measure.compare(sets[0].tensors[name], reference[name], case.tolerance(spec.dtype))
            c["output"] = name
            checks.append(c)
    del reference
    record = {"status": "ok" if all(c["ok"] for c in checks) else "wrong", "checks": checks, "metric": case.metric}
    if record["status"] == "ok":
        for s in sets:
            s.poison_outputs()
        timing = measure.time_runs(runs)
        if timing["iters"] < MIN_RUNS:
            timing = measure.time_runs(runs, MIN_RUNS)
        timing["rate"] = run_bench.rate(case.work(shape, item["dtype"]), timing["ms"], case.metric)
        record["cake"] = timing
        record["work"] = case.work(shape, item["dtype"])
    del sets, runs
    torch.cuda.empty_cache()
    return record


def worker(args):
    journal = run_bench.Journal(args.journal)
    torch = run_bench.open_gpu(journal)
    if torch is None:
        return run_bench.EXIT_NO_GPU
    import measure
    torch.backends.cuda.matmul.allow_tf32 = False      # float32 references in true float32
    torch.backends.cudnn.allow_tf32 = False
    cake = run_bench.use_runtime_library(os.path.join(BENCH_DIR, "out"))
    if args.start == 0:
        journal.write({"event": "meta", "meta": {"device": measure.device_info(), "python": sys.version.split()[0]}})
    plan, _ = make_plan(read_variants(args.variants), cake)
    modules, seeds = {}, iter(range(5000 + 7919 * args.start, 1 << 62))
    for item in plan[args.start:]:
        if time.time() > args.deadline:
            journal.write({"event": "end", "id": item["id"], "status": "skipped", "detail": "time budget used up"})
            continue
        journal.write({"event": "begin", "id": item["id"]})
        started = time.perf_counter()
        try:
            record = run_case(item, cake, modules, seeds)
        except Exception as error:  # noqa: BLE001
            record = {"status": "error", "error": "%s: %s" % (type(error).__name__, error),
                      "traceback": traceback.format_exc(limit=4)}
        record.update(event="end", id=item["id"], seconds=round(time.perf_counter() - started, 3))
        journal.write(record)
        print("[%3d/%d] %-8s %-28s %-16s %s" % (item["id"] + 1, len(plan), record["status"], item["variant"],
                                                item["shape"], summary(record)), flush=True)
        if record["status"] == "error" and not measure.context_healthy():
            return run_bench.EXIT_CONTEXT_BROKEN
    journal.write({"event": "meta_end", "nvidia_smi": measure.nvidia_smi()})
    return 0


def summary(record):
    parts = []
    if record.get("checks"):
        parts.append("rel_err %.1e" % max(c["rel_err"] for c in record["checks"]))
    if record.get("cake"):
        parts.append("%.4f ms %s" % (record["cake"]["ms"], run_bench.fmt_rate(record["cake"]["rate"], record["metric"])))
    if record.get("error"):
        parts.append(record["error"].splitlines()[-1][:150])
    return "  ".join(parts)


# =========================================================================================== orchestrator
def orchestrate(args, plan):
    deadline = time.time() + args.budget
    journal = os.path.join(args.out, "journal.jsonl")
    open(journal, "w").close()
    results, meta, fatal, start, offset = {}, {}, None, 0, 0
    for _ in range(run_bench.MAX_WORKER_STARTS):
        if start >= len(plan):
            break
        command = [sys.executable, os.path.abspath(__file__), "--worker", "--start", str(start), "--journal", journal,
                   "--deadline", repr(deadline), "--variants", args.variants]
        run, offset = run_bench.supervise(command, journal, offset, args.stall, results, meta)
        fatal, current = run.fatal, run.current
        if fatal or run.rc == 0:
            break
        if current is not None:
            results[current] = {"status": "error", "error": run.why or "worker died: %s" % run.rc}
        start = (max(results) + 1) if results else start + 1
    for item in plan:
        results.setdefault(item["id"], {"status": "skipped", "detail": fatal or "not run"})
    return results, meta, fatal


def write_outputs(args, plan, skipped, results, meta, fatal, seconds):
    sys.path.insert(0, BENCH_DIR)
    import results_to_measurements
    variants_doc = read_variants(args.variants)
    now = datetime.datetime.now(datetime.timezone.utc)
    commit = variants_doc.get("commit", "unknown")
    name = "%s-sweep-%s" % (now.strftime("%Y-%m-%d"), commit[:12])
    document = {"format": "cake-bench", "version": 1, "name": name,
                "meta": {"commit": commit, "dirty": variants_doc.get("dirty"), "date": now.isoformat(timespec="seconds"),
                         "mode": "sweep", "seconds": round(seconds, 1), "fatal": fatal, **meta},
                "notes": ["variants not run: " + "; ".join("%s (%s)" % (v["name"], v["reason"]) for v in skipped)]
                if skipped else [],
                "cases": [dict(item, result=results[item["id"]]) for item in plan]}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(document, f, indent=1, default=str)
    measurements = results_to_measurements.convert_document(json.loads(json.dumps(document, default=str)),
                                                             name + ".json")
    for m in measurements["measurements"]:
        m["label"] = "%s %s" % (next(i["variant"] for i in plan if m["source"].endswith("#case-%d" % i["id"])),
                                m["label"].split()[-1])
    with open(os.path.join(args.out, "measurements.json"), "w") as f:
        json.dump(measurements, f, indent=1)
    lines = ["# CAKE variant sweep %s" % name, "",
             "- commit `%s`%s, %.0f s, device %s" % (commit, " (dirty tree)" if variants_doc.get("dirty") else "",
                                                     seconds, (meta.get("device") or {}).get("name", "?")),
             "- per case: fresh random inputs, NaN-poisoned outputs, rel. error vs float32 torch; GPU time = median of "
             ">= %d CUDA-event timed runs (bench/measure.py)" % MIN_RUNS,
             "- %d cases, %d ok, %d wrong, %d error, %d skipped; %d measurements -> measurements.json" % (
                 len(plan), *[sum(1 for r in results.values() if r["status"] == s) for s in ("ok", "wrong", "error", "skipped")],
                 len(measurements["measurements"]))]
    if fatal:
        lines.append("- **nothing ran: %s**" % fatal)
    for v in skipped:
        lines.append("- not run: %s (%s)" % (v["name"], v["reason"]))
    lines += ["", "| variant | defines | shape | status | rel err | ms | rate | verified |", "|---|---|---|---|---|---|---|---|"]
    for item in plan:
        r = results[item["id"]]
        err = max((c["rel_err"] for c in r.get("checks") or []), default=None)
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            item["variant"], " ".join("%s=%s" % kv for kv in item["defines"].items()), item["shape"],
            r["status"] if r["status"] == "ok" else r["status"].upper(), "-" if err is None else "%.1e" % err,
            run_bench.fmt_ms((r.get("cake") or {}).get("ms")),
            run_bench.fmt_rate((r.get("cake") or {}).get("rate"), r.get("metric", "")),
            "yes" if item["verified"] else "no (--no-verify)"))
        if r.get("error"):
            lines[-1] = lines[-1][:-1] + " %s |" % r["error"].splitlines()[-1][:100].replace("|", "/")
    with open(os.path.join(args.out, "sweep.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:6]))
    print("wrote %s/{results.json,measurements.json,sweep.md}" % args.out)
    bad = [i for i in plan if results[i["id"]]["status"] in ("wrong", "error")]
    for item in bad:
        print("EXCLUDED %s %s: %s" % (item["variant"], item["shape"], results[item["id"]]["status"]))
    return 2 if fatal else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("OUT"))
    ap.add_argument("--variants", default=os.path.join(BENCH_DIR, "out", "sweep", "variants.json"))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="seconds for all cases (default 200)")
    ap.add_argument("--stall", type=float, default=60.0, help="seconds without progress = hung case (default 60)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--journal", help=argparse.SUPPRESS)
    ap.add_argument("--deadline", type=float, default=float("inf"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    cake = run_bench.use_runtime_library(os.path.join(BENCH_DIR, "out"))
    run_bench.ensure_runtime_loads(cake)
    if args.dry_run:
        return dry_run(args, cake)
    if not args.out:
        ap.error("--out DIR is required (or $OUT)")
    args.out = os.path.abspath(args.out)
    os.makedirs(args.out, exist_ok=True)
    started = time.time()
    plan, skipped = make_plan(read_variants(args.variants), cake)
    results, meta, fatal = orchestrate(args, plan)
    return write_outputs(args, plan, skipped, results, meta, fatal, time.time() - started)


if __name__ == "__main__":
    sys.exit(main())
