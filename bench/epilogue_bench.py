#!/usr/bin/env python3
"""The TMA-store epilogue on the H200: samples/hopper_gemm_tma_epilogue (accumulator -> stmatrix -> shared ->
TMA store) against samples/hopper_gemm_persistent (masked st.global epilogue) and torch.matmul (cuBLAS).

    bash bench/build.sh && bash bench/epilogue_build.sh     # development machine: cubins -> bench/out
    python3 bench/epilogue_bench.py --dry-run               # anywhere: plan every case (no GPU, no torch)
    python3 bench/epilogue_bench.py --out DIR               # GPU machine: DIR/epilogue.{json,md}

Kernels: every cubin of bench/out/epilogue/ (bench/out/epilogue/variants.json) and the current persistent
sample, bench/out/sm_90a/hopper_gemm_persistent.cubin.  Cases, buffers, references and the peer are
bench/cases.py's HopperGemmPersistent (C = A B^T, bf16 in/out); each case runs through bench/run_bench.py's
run_case: fresh random inputs, NaN-poisoned outputs, relative error <= 1e-2 against float32 torch (checked
before and after timing, on new inputs), then the median GPU time of the kernel and of torch.matmul in the
same run.  Shapes: 4096^3, 8192^3, 4000^3, 8192x8192x1024, 128x8192x8192, 8192x128x8192 and the small ragged
200x264x72.  Then, on the default epilogue variant and a small ragged shape, compute-sanitizer memcheck,
racecheck and synccheck (this script with --small, in a subprocess each), and `cuobjdump -sass` instruction
counts (STSM, UTMASTG, STG, HGMMA, BAR) of every kernel.  Whole run < 2.5 minutes (--budget).

One process: a case that breaks the CUDA context ends the timed part (the remaining cases are recorded as
skipped) - the report is still written.  Exit status: 0 when every case is correct and every sanitizer run
clean (or skipped), 1 otherwise, 2 when nothing could run."""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import cases as case_defs  # noqa: E402
import run_bench  # noqa: E402  (runtime loading, run_case, rate/format helpers)

BASELINE = "hopper_gemm_persistent"
SHAPE_LABELS = ["4096^3", "8192^3", "4000^3", "8192x8192x1024", "128x8192x8192", "8192x128x8192", "200x264x72"]
SMALL_SHAPES = [(200, 264, 72), (520, 776, 200)]       # ragged M, N (and K tail) for the sanitizers
SANITIZER_TOOLS = ["memcheck", "racecheck", "synccheck"]
SASS_OPS = ["STSM", "UTMASTG", "UTMALDG", "STG", "HGMMA", "BAR", "SYNCS"]
DEFAULT_BUDGET_S = 140.0


# =========================================================================================== kernels and plan
def kernels(cubins):
    """[(name, cubin path)]: the epilogue variants (variants.json order), then the baseline."""
    out = []
    folder = os.path.join(cubins, "epilogue")
    listed = run_bench.read_json(os.path.join(folder, "variants.json")) or {}
    for v in listed.get("variants", []):
        path = os.path.join(folder, v["name"] + ".cubin")
        if v.get("status", "").startswith("ok") and os.path.isfile(path) and os.path.isfile(path + ".json"):
            out.append((v["name"], path))
    baseline = os.path.join(cubins, "sm_90a", BASELINE + ".cubin")
    if os.path.isfile(baseline) and os.path.isfile(baseline + ".json"):
        out.append((BASELINE, baseline))
    return out


def make_plan(cubins, shape_labels=None):
    """Items in run_bench's format (sample = the kernel's variant name), shapes in SHAPE_LABELS order."""
    labels = shape_labels or SHAPE_LABELS
    plan = []
    for name, path in kernels(cubins):
        manifest = run_bench.read_json(path + ".json")
        case = case_defs.HopperGemmPersistent(manifest, None)
        by_label = {s.label: (i, s) for i, s in enumerate(case.shapes())}
        kernel, dtype = case.variants()[0]
        for label in labels:
            if label not in by_label:
                continue
            index, shape = by_label[label]
            plan.append({"sample": name, "arch": "sm_90a", "cubin": path, "kernel": kernel, "dtype": dtype,
                         "shape": label, "dims": shape.dims, "accept": False, "expect_reject": False,
                         "shape_index": index, "skip": None})
    for i, item in enumerate(plan):
        item["id"] = i
    return plan


def variant_cache(cake):
    """run_bench.CaseCache for the epilogue variants: every cubin is a persistent-GEMM-shaped kernel."""
    return run_bench.CaseCache(cake, case_class=lambda item: case_defs.HopperGemmPersistent)


def dry_run(args):
    cake = run_bench.use_runtime_library(args.cubins)
    run_bench.ensure_runtime_loads(cake)
    plan = make_plan(args.cubins)
    if not plan:
        print("dry run: no kernels under %s (run bash bench/build.sh && bash bench/epilogue_build.sh)" % args.cubins)
        return 2
    cache, problems = variant_cache(cake), 0
    for item in plan:
        case, module, shape = cache.get(item)
        fake = run_bench.fake_buffers(cake, case.buffers(shape, item["dtype"]))
        try:
            plans = [module[k].plan(*a, num_sms=132) for k, a in case.calls(item["kernel"], shape, fake)]
        except cake.CakeError as error:
            problems += 1
            print("ERROR %-22s %-16s %s: %s" % (item["sample"], item["shape"], type(error).__name__, error))
            continue
        p = plans[0]
        print("OK    %-22s %-16s grid=%s block=%s cluster=%s smem=%d" % (item["sample"], item["shape"], p.grid,
                                                                       p.block, p.cluster, p.dynamic_smem_bytes))
    print("dry run: %d cases, %d problem(s)" % (len(plan), problems))
    return 1 if problems else 0


# =========================================================================================== GPU parts
def run_cases(args, plan, deadline):
    """{id: record}; stops (records the rest as skipped) when the budget is used or the context breaks."""
    import torch
    import measure
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cake = run_bench.use_runtime_library(args.cubins)
    cache, results, broken = variant_cache(cake), {}, None
    seeds = iter(range(4242, 1 << 62))
    for item in plan:
        if broken or time.time() > deadline:
            results[item["id"]] = {"status": "skipped", "detail": broken or "time budget (--budget) used up"}
            continue
        started = time.perf_counter()
        try:
            record = run_bench.run_case(item, cache, cake, args, seeds)
        except Exception as error:  # noqa: BLE001 - record it and go on (or stop if CUDA is broken)
            record = {"status": "error", "error": "%s: %s" % (type(error).__name__, error),
                      "traceback": traceback.format_exc(limit=6)}
            if not measure.context_healthy():
                broken = "CUDA context broken by %s %s" % (item["sample"], item["shape"])
        record["seconds"] = round(time.perf_counter() - started, 3)
        results[item["id"]] = record
        print("%-22s %s" % (item["sample"], run_bench.summary_line(item, record)), flush=True)
    return results


def small_check(cubin):
    """The --small mode (run under compute-sanitizer): SMALL_SHAPES through one cubin; 0 when all correct."""
    os.environ.setdefault("CAKE_RUNTIME_LIB", os.path.join(os.path.dirname(os.path.dirname(cubin)),
                                                           "libcake_runtime.so"))
    import torch
    import cake
    import hopper_small
    torch.manual_seed(1)
    mod, ok = cake.load(cubin), True
    for m, n, k in SMALL_SHAPES:
        ok = hopper_small.check_gemm_bt(torch, mod, "", m, n, k) and ok
    return 0 if ok else 1


SANITIZER_SUMMARY = re.compile(r"=+ (ERROR SUMMARY: \d+ errors?|RACECHECK SUMMARY: [^\n]*)")


def run_sanitizers(cubin, deadline, tools=SANITIZER_TOOLS, timeout_s=45):
    """[{tool, status, summary, tail}]: each tool over this script's --small mode on `cubin`."""
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    out = []
    for tool in tools:
        if not os.path.exists(sanitizer):
            out.append({"tool": tool, "status": "skipped", "detail": "no compute-sanitizer"})
            continue
        left = deadline - time.time()
        if left < 10:
            out.append({"tool": tool, "status": "skipped", "detail": "time budget used up"})
            continue
        command = [sanitizer, "--tool", tool, "--error-exitcode", "9", sys.executable, os.path.abspath(__file__),
                   "--small", cubin]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=min(timeout_s, left))
            text = done.stdout + done.stderr
            summary = "; ".join(SANITIZER_SUMMARY.findall(text))
            clean = done.returncode == 0
            out.append({"tool": tool, "status": "clean" if clean else "errors", "rc": done.returncode,
                        "summary": summary, "tail": text[-1500:]})
        except subprocess.TimeoutExpired:
            out.append({"tool": tool, "status": "timeout", "detail": "over %d s" % min(timeout_s, left)})
        print("compute-sanitizer %-9s %s %s" % (tool, out[-1]["status"], out[-1].get("summary", "")), flush=True)
    return out


def sass_counts(cubin):
    """{op: count} of SASS instructions (by opcode prefix) in the cubin, or {"error": ..}."""
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    try:
        done = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        return {"error": str(error)}
    if done.returncode != 0:
        return {"error": done.stderr[-300:]}
    return count_sass(done.stdout)


def count_sass(text):
    """{op: count} of the SASS_OPS opcodes (the mnemonic before its first '.') in cuobjdump -sass text."""
    counts = {op: 0 for op in SASS_OPS}
    for line in text.splitlines():
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)", line)
        if m and m.group(1) in counts:
            counts[m.group(1)] += 1
    return counts


# =========================================================================================== reports
def markdown(plan, results, sanitizers, sass, meta):
    lines = ["# TMA-store epilogue vs masked st.global epilogue (H200)", "",
             "Generated by bench/epilogue_bench.py at %s; device: %s." % (meta.get("date"), meta.get("device")), "",
             "| kernel | shape | status | rel err | TFLOP/s | torch TFLOP/s | ratio | vs %s |" % BASELINE,
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    base = {item["shape"]: results.get(item["id"], {}) for item in plan if item["sample"] == BASELINE}
    for item in plan:
        r = results.get(item["id"], {})
        err = max((c["rel_err"] for c in r.get("checks", [])), default=None)
        rate = (r.get("cake") or {}).get("rate")
        peer = (r.get("peer") or {}).get("rate")
        b = (base.get(item["shape"], {}).get("cake") or {}).get("rate")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            item["sample"], item["shape"], r.get("status", "?"), "%.2e" % err if err is not None else "-",
            "%.0f" % (rate / 1e0) if rate else "-", "%.0f" % peer if peer else "-",
            "%.2f" % r["ratio"] if r.get("ratio") else "-",
            "%.3f" % (rate / b) if rate and b and item["sample"] != BASELINE else "-"))
    lines += ["", "## compute-sanitizer (%s)" % ", ".join("%dx%dx%d" % s for s in SMALL_SHAPES), ""]
    for s in sanitizers:
        lines.append("- %s: %s %s" % (s["tool"], s["status"], s.get("summary") or s.get("detail", "")))
    lines += ["", "## SASS instruction counts (cuobjdump -sass)", "",
              "| kernel | " + " | ".join(SASS_OPS) + " |", "| --- |" + " --- |" * len(SASS_OPS)]
    for name, counts in sass.items():
        if "error" in counts:
            lines.append("| %s | %s |" % (name, counts["error"].replace("\n", " ")[:120]))
        else:
            lines.append("| %s | %s |" % (name, " | ".join(str(counts[op]) for op in SASS_OPS)))
    return "\n".join(lines) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="folder for epilogue.json and epilogue.md (required unless --dry-run/--small)")
    p.add_argument("--cubins", default=os.path.join(REPO, "bench", "out"), help="bench/build.sh's output folder")
    p.add_argument("--dry-run", action="store_true", help="plan every case without a GPU")
    p.add_argument("--small", metavar="CUBIN", help="(internal) the sanitizer mode: small ragged shapes on CUBIN")
    p.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, help="seconds for the whole run")
    p.add_argument("--no-sanitizer", action="store_true", help="skip the compute-sanitizer runs")
    p.add_argument("--iters", type=int, default=None, help="timed runs per case (default: measure.py adapts)")
    p.add_argument("--sets", type=int, default=0, help="buffer sets to rotate (1: no rotation; 0: automatic)")
    args = p.parse_args(argv)
    args.quick = False
    if not (args.dry_run or args.small or args.out):
        p.error("--out DIR is required")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.small:
        return small_check(args.small)
    if args.dry_run:
        return dry_run(args)
    started = time.time()
    deadline = started + args.budget
    plan = make_plan(args.cubins)
    if not plan:
        print("epilogue_bench.py: no kernels under %s (run bash bench/build.sh && bash bench/epilogue_build.sh)"
              % args.cubins, file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "build": run_bench.build_info(args.cubins).get("commit"),
            "variants": (run_bench.read_json(os.path.join(args.cubins, "epilogue", "variants.json")) or {})}
    try:
        import measure
        meta["device"] = measure.device_info().get("name")
        results = run_cases(args, plan, deadline - 45 * (not args.no_sanitizer))
    except Exception as error:  # noqa: BLE001 - no GPU / torch: report and stop
        print("epilogue_bench.py: cannot run: %s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 2
    default = next((path for name, path in kernels(args.cubins) if name != BASELINE), None)
    sanitizers = [] if args.no_sanitizer or default is None else run_sanitizers(default, deadline)
    sass = {name: sass_counts(path) for name, path in kernels(args.cubins)}
    document = {"format": "cake-epilogue-bench v1", "meta": meta, "seconds": round(time.time() - started, 1),
                "cases": [dict(item, result=results.get(item["id"], {})) for item in plan],
                "sanitizers": sanitizers, "sass": sass}
    import measure
    with open(os.path.join(args.out, "epilogue.json"), "w") as f:
        f.write(measure.dumps(document))
    text = markdown(plan, results, sanitizers, sass, meta)
    with open(os.path.join(args.out, "epilogue.md"), "w") as f:
        f.write(text)
    print(text)
    wrong = [i for i, r in results.items() if r.get("status") not in ("ok",)]
    dirty = [s for s in sanitizers if s["status"] not in ("clean", "skipped")]
    return 1 if wrong or dirty else 0


if __name__ == "__main__":
    sys.exit(main())
