#!/usr/bin/env python3
"""CAKE benchmark harness: correctness and speed of every sample's cubin against torch, on one GPU.

    bench/build.sh                                   # development machine: cakec, runtime, cubins -> bench/out
    python3 bench/run_bench.py --dry-run             # anywhere: plan every case (no GPU, no torch needed)
    python3 bench/run_bench.py --out DIR [--quick]   # GPU machine: run, write DIR/results.{json,md}

Cases (bench/cases.py) are (sample, kernel/dtype, shape).  For each: fresh random inputs, NaN-poisoned
outputs, one launch through the `cake` runtime, relative error against a float32/float64 torch reference
(every element checked, NaN left = wrong); then the GPU time (median of >= 50 runs, CUDA events, rotating
buffer sets when a run's data fits in L2; bench/measure.py) of the kernel and of its peer (cuBLAS,
torch.softmax, torch.sum, a copy); then a second check on new inputs.  Shapes the kernel's `requires`
refuses must be refused by the runtime.

Process layout: this process (the orchestrator) needs no torch; it runs the cases in a worker subprocess
(the same script with --worker) that appends one JSON line per case to a journal.  When a case breaks the
CUDA context (illegal address), crashes or hangs, the orchestrator records it, and starts a new worker at
the next case, so one broken kernel costs one case, not the run.  At the end it writes results.json and
results.md and prints the table and the acceptance checks (PASS/FAIL/SKIP lines).  Exit status: 0 when no
acceptance check failed, 1 when one did, 2 when nothing could run (no GPU / torch / cubins)."""

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

EXIT_CONTEXT_BROKEN = 3
EXIT_NO_GPU = 4
MAX_WORKER_STARTS = 8


# =========================================================================================== setup
def use_runtime_library(cubin_dir):
    """Points the cake package at the libcake_runtime.so that build.sh copied into the cubin folder."""
    lib = os.path.join(cubin_dir, "libcake_runtime.so")
    if "CAKE_RUNTIME_LIB" not in os.environ and os.path.isfile(lib):
        os.environ["CAKE_RUNTIME_LIB"] = lib
    import cake
    return cake


def ensure_runtime_loads(cake):
    """Loads libcake_runtime.so; when the carried one does not load here (another libc, say), builds it from
    runtime/src with the machine's C++ compiler into a temporary folder (a few seconds; needs no CUDA)."""
    try:
        cake.runtime_version()
        return None
    except OSError as error:
        first_error = str(error)
    folder = os.path.join(os.environ.get("TMPDIR", "/tmp"), "cake-bench-runtime")
    os.makedirs(folder, exist_ok=True)
    lib = os.path.join(folder, "libcake_runtime.so")
    sources = sorted(os.path.join(REPO, "runtime", "src", f) for f in os.listdir(os.path.join(REPO, "runtime", "src"))
                     if f.endswith(".cpp"))
    compiler = os.environ.get("CXX", "c++")
    command = [compiler, "-std=c++20", "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
               "-I" + os.path.join(REPO, "runtime", "include"), "-I" + os.path.join(REPO, "runtime", "src"),
               *sources, "-o", lib, "-ldl", "-lpthread"]
    print("run_bench.py: the runtime library does not load (%s); building it with %s" % (first_error, compiler),
          flush=True)
    try:
        built = subprocess.run(command, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        raise SystemExit("run_bench.py: cannot build the runtime: %s" % error)
    if built.returncode != 0:
        raise SystemExit("run_bench.py: building the runtime failed:\n%s" % built.stderr[-3000:])
    os.environ["CAKE_RUNTIME_LIB"] = lib
    cake.runtime_version()
    return lib


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def build_info(cubin_dir):
    return read_json(os.path.join(cubin_dir, "build_info.json")) or {}


def git_commit(info):
    """The commit benchmarked: $CAKE_COMMIT, else build_info.json (written by build.sh), else git."""
    if os.environ.get("CAKE_COMMIT"):
        return os.environ["CAKE_COMMIT"], None
    if info.get("commit") and info["commit"] != "unknown":
        return info["commit"], info.get("dirty")
    try:
        out = subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            return out.stdout.strip(), None
    except (OSError, subprocess.SubprocessError):
        pass
    return "unknown", None


def find_cubin(cubin_dir, sample):
    """(arch, cubin path) of a sample: the sm_90a build when there is one, else sm_90, else any."""
    archs = sorted(d for d in os.listdir(cubin_dir) if os.path.isdir(os.path.join(cubin_dir, d))) \
        if os.path.isdir(cubin_dir) else []
    for arch in ["sm_90a", "sm_90"] + archs:
        path = os.path.join(cubin_dir, arch, sample + ".cubin")
        if os.path.isfile(path) and os.path.isfile(path + ".json"):
            return arch, path
    return None, None


def skip_reason(info, sample):
    rows = [r for r in info.get("samples", []) if r.get("sample") == sample]
    if not rows:
        return "no cubin (run bench/build.sh; sample not in build_info.json)"
    return "no cubin: " + "; ".join("%s %s%s" % (r["arch"], r["status"], " - " + r["detail"] if r.get("detail")
                                                  else "") for r in rows)


# =========================================================================================== the plan
def make_plan(args, cake):
    """The ordered list of cases; identical in the orchestrator, the workers and the dry run."""
    info = build_info(args.cubins)
    wanted = args.samples.split(",") if args.samples else None
    if wanted:
        unknown = [s for s in wanted if s not in case_defs.CASES_BY_SAMPLE]
        if unknown:
            raise SystemExit("run_bench.py: unknown sample(s) %s (known: %s)"
                             % (", ".join(unknown), ", ".join(case_defs.CASES_BY_SAMPLE)))
    plan, notes = [], []
    for case_class in case_defs.CASES:
        sample = case_class.sample
        if wanted and sample not in wanted:
            continue
        arch, cubin = find_cubin(args.cubins, sample)
        base = {"sample": sample, "arch": arch, "cubin": cubin}
        if cubin is None:
            plan.append(dict(base, kernel=None, dtype=None, shape=None, dims={}, accept=False, expect_reject=False,
                             shape_index=-1, skip=skip_reason(info, sample)))
            continue
        manifest = read_json(cubin + ".json")
        case = case_class(manifest, cake)
        notes += case.notes()
        for kernel, dtype in case.variants():
            for index, shape in enumerate(case.shapes()):
                if args.quick and not shape.quick:
                    continue
                plan.append(dict(base, kernel=kernel, dtype=dtype, shape=shape.label, dims=shape.dims,
                                 accept=shape.accept, expect_reject=shape.expect_reject, shape_index=index, skip=None))
    for i, item in enumerate(plan):
        item["id"] = i
    return plan, notes


class CaseCache:
    """Case objects and loaded modules per cubin (one cake.load each): (case, module, shape) per plan item.
    case_class(item) picks the case class; by default the sample's (cases.CASES_BY_SAMPLE)."""

    def __init__(self, cake, case_class=None):
        self.cake = cake
        self.case_class = case_class or (lambda item: case_defs.CASES_BY_SAMPLE[item["sample"]])
        self.cases, self.modules = {}, {}

    def get(self, item):
        key = item["cubin"]
        if key not in self.cases:
            self.cases[key] = self.case_class(item)(read_json(key + ".json"), self.cake)
            self.modules[key] = self.cake.load(key)
        case = self.cases[key]
        return case, self.modules[key], case.shapes()[item["shape_index"]]


def fake_buffers(cake, specs):
    """Device pointers at made-up, 1 MiB-aligned addresses with the shapes and dtypes of `specs` (name ->
    spec): enough for the runtime's planner (alignment, requires checks) without a GPU."""
    address, fake = 1 << 36, {}
    for name, spec in specs.items():
        fake[name] = cake.DevicePtr(address, shape=spec.shape, dtype=spec.dtype)
        address += (spec.nbytes + (1 << 20)) >> 20 << 20
    return fake


def open_gpu(journal):
    """Imports torch and touches the GPU; on failure writes a 'fatal' journal record and returns None (the
    worker then exits EXIT_NO_GPU)."""
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        torch.zeros(1, device="cuda")
        return torch
    except Exception as error:  # noqa: BLE001
        journal.write({"event": "fatal", "error": "no GPU: %s: %s" % (type(error).__name__, error)})
        return None


def describe(item):
    if item["kernel"] is None:
        return item["sample"]
    return "%s %s %s" % (item["sample"], item["dtype"], item["shape"])


# =========================================================================================== dry run
def dry_run(args, cake):
    """Plans every call of every case with fake device addresses (no GPU, no torch)."""
    plan, notes = make_plan(args, cake)
    cache = CaseCache(cake)
    problems = 0
    for item in plan:
        if item["skip"]:
            print("SKIP  %-40s %s" % (describe(item), item["skip"]))
            continue
        case, module, shape = cache.get(item)
        specs = case.buffers(shape, item["dtype"])
        fake = fake_buffers(cake, specs)
        sets = case_defs.rotation_sets(specs, case_defs.L2_BYTES_DEFAULT)
        label = "%-40s %s" % (describe(item), item["arch"])
        try:
            plans = [(kernel, module[kernel].plan(*call_args, num_sms=132)) for kernel, call_args in
                     case.calls(item["kernel"], shape, fake)]
        except cake.CakeRequirementError as error:
            if item["expect_reject"]:
                print("OK    %s refused as expected: %s" % (label, error))
            else:
                problems += 1
                print("ERROR %s %s" % (label, error))
            continue
        except cake.CakeError as error:
            problems += 1
            print("ERROR %s %s: %s" % (label, type(error).__name__, error))
            continue
        if item["expect_reject"]:
            problems += 1
            print("ERROR %s planned a shape its requires should refuse" % label)
            continue
        work = case.work(shape, item["dtype"])
        print("OK    %s %s=%.4g %s rotation=%s" % (
            label, "flop" if case.metric == "TFLOP/s" else "bytes", work,
            case.peer_name, "1 set" if sets == 1 else "%d sets" % sets))
        for kernel, p in plans:
            print("        %s grid=%s block=%s cluster=%s smem=%d" % (kernel, p.grid, p.block, p.cluster,
                                                                     p.dynamic_smem_bytes))
    for note in notes:
        print("NOTE  " + note)
    runnable = sum(1 for item in plan if not item["skip"])
    print("dry run: %d cases (%d runnable, %d skipped), %d problem(s)" % (
        len(plan), runnable, len(plan) - runnable, problems))
    return 1 if problems else 0


# =========================================================================================== worker
class Journal:
    def __init__(self, path):
        self.file = open(path, "a")

    def write(self, record):
        import measure
        self.file.write(measure.dumps(record) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())


def rate(work, ms, metric):
    if not ms or ms <= 0:
        return None
    return work / (ms * 1e-3) / (1e12 if metric == "TFLOP/s" else 1e9)


def run_case(item, cache, cake, args, seeds):
    import measure
    import torch
    case, module, shape = cache.get(item)
    dtype = item["dtype"]
    specs = case.buffers(shape, dtype)
    record = {"status": "ok", "metric": case.metric, "peer_name": case.peer_name}

    def fresh_generator():
        return measure.generator(next(seeds))

    def bound_calls(buffer_set):
        calls = [(module[kernel], call_args) for kernel, call_args in
                 case.calls(item["kernel"], shape, buffer_set.tensors)]

        def run():
            for kernel, call_args in calls:
                kernel(*call_args)
        return run

    if item["expect_reject"]:
        buffers = measure.BufferSet(specs)
        buffers.refill(case, fresh_generator())
        try:
            bound_calls(buffers)()
            torch.cuda.synchronize()
        except cake.CakeRequirementError as error:
            record.update(status="refused", detail=str(error))
        else:
            record.update(status="wrong", detail="the runtime launched a shape the kernel's requires refuses")
        return record

    def check(buffer_set, run):
        buffer_set.refill(case, fresh_generator())
        run()
        torch.cuda.synchronize()
        reference = case.reference(torch, shape, buffer_set.tensors)
        results = []
        for name, spec in specs.items():
            if spec.role == "out":
                result = measure.compare(buffer_set.tensors[name], reference[name], case.tolerance(spec.dtype))
                result["output"] = name
                results.append(result)
        del reference
        return results

    count = 1 if args.sets == 1 else measure.set_count(specs)
    if args.quick:
        count = min(count, 8)
    sets = [measure.BufferSet(specs) for _ in range(count)]
    for buffer_set in sets:
        buffer_set.refill(case, fresh_generator())
    runs = [bound_calls(s) for s in sets]
    checks = check(sets[0], runs[0])                             # check 1: before timing
    record["cake"] = measure.time_runs(runs, args.iters)
    work = case.work(shape, dtype)
    record["work"] = work
    record["cake"]["rate"] = rate(work, record["cake"]["ms"], case.metric)
    try:
        peers = [case.peer(torch, shape, dtype, s.tensors) for s in sets]
        record["peer"] = measure.time_runs(peers, args.iters)
        record["peer"]["rate"] = rate(case.peer_work(shape, dtype), record["peer"]["ms"], case.metric)
        del peers
        if record["cake"]["rate"] and record["peer"]["rate"]:
            record["ratio"] = record["cake"]["rate"] / record["peer"]["rate"]
    except Exception as error:  # noqa: BLE001 - a failing peer does not fail the case
        record["peer_error"] = "%s: %s" % (type(error).__name__, error)
    checks += check(sets[0], runs[0])                            # check 2: fresh inputs after timing
    record["checks"] = checks
    if not all(c["ok"] for c in checks):
        record["status"] = "wrong"
    del sets, runs
    torch.cuda.empty_cache()
    return record


def summary_line(item, record):
    status = record.get("status")
    text = "%-9s %s" % (status, describe(item))
    if record.get("checks"):
        text += "  rel_err %.2e" % max(c["rel_err"] for c in record["checks"])
    if record.get("cake"):
        text += "  cake %.4f ms %s" % (record["cake"]["ms"], fmt_rate(record["cake"].get("rate"), record["metric"]))
    if record.get("peer"):
        text += "  peer %.4f ms" % record["peer"]["ms"]
    if record.get("ratio"):
        text += "  x%.2f" % record["ratio"]
    if record.get("detail") or record.get("error"):
        text += "  " + (record.get("error") or record.get("detail")).splitlines()[-1][:160]
    return text


def worker(args):
    """Runs plan[args.start:], one journal line per case; exits EXIT_CONTEXT_BROKEN when CUDA is unusable."""
    journal = Journal(args.journal)
    torch = open_gpu(journal)
    if torch is None:
        return EXIT_NO_GPU
    import measure
    torch.backends.cuda.matmul.allow_tf32 = False     # f32 references and the SGEMM peer in true f32
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cake = use_runtime_library(args.cubins)
    if args.start == 0:
        meta = {"device": measure.device_info(), "python": sys.version.split()[0]}
        try:
            meta["cake_runtime"] = cake.runtime_version()
            meta["cake_library"] = cake.library_path()
        except cake.CakeError as error:
            meta["cake_runtime_error"] = str(error)
        journal.write({"event": "meta", "meta": meta})
    plan, _ = make_plan(args, cake)
    cache = CaseCache(cake)
    seeds = iter(range(1000 + 7919 * args.start, 1 << 62))
    for item in plan[args.start:]:
        if item["skip"]:
            journal.write({"event": "end", "id": item["id"], "status": "skipped", "detail": item["skip"]})
            continue
        if time.time() > args.deadline:
            journal.write({"event": "end", "id": item["id"], "status": "skipped",
                           "detail": "time budget (--budget) used up"})
            continue
        journal.write({"event": "begin", "id": item["id"], "time": time.time()})
        started = time.perf_counter()
        try:
            record = run_case(item, cache, cake, args, seeds)
        except Exception as error:  # noqa: BLE001 - record it and go on
            record = {"status": "error", "error": "%s: %s" % (type(error).__name__, error),
                      "traceback": traceback.format_exc(limit=6)}
        record.update(event="end", id=item["id"], seconds=round(time.perf_counter() - started, 3))
        journal.write(record)
        print("[%3d/%d] %s" % (item["id"] + 1, len(plan), summary_line(item, record)), flush=True)
        if record["status"] == "error":
            if not measure.context_healthy():
                print("          CUDA context broken: restarting the worker", flush=True)
                return EXIT_CONTEXT_BROKEN
            torch.cuda.empty_cache()
    journal.write({"event": "meta_end", "nvidia_smi": measure.nvidia_smi()})   # clocks right after the load
    return 0


# =========================================================================================== orchestrator
def read_journal(path, offset):
    records = []
    with open(path) as f:
        f.seek(offset)
        while True:
            line = f.readline()
            if not line or not line.endswith("\n"):
                break
            offset = f.tell()
            records.append(json.loads(line))
    return records, offset


class WorkerRun:
    """What one worker process did (supervise): its journal state and how it ended."""

    def __init__(self):
        self.rc = None            # exit status; None when it was killed
        self.why = None           # why it was killed
        self.current = None       # the case it had begun and not ended
        self.progressed = False   # it began or ended a case
        self.fatal = None         # the error of a 'fatal' record


def supervise(command, journal, offset, stall, results, meta, deadline=None):
    """Runs one worker (`command`) and follows its journal from `offset` until it exits, or kills it when
    it writes nothing for `stall` seconds (or runs `stall` seconds past `deadline`).  'end' records go into
    `results` by case id, 'meta' / 'meta_end' into `meta`.  Returns (WorkerRun, the journal offset reached).
    Shared by run_bench's and sweep_bench's orchestrators."""
    run = WorkerRun()
    process = subprocess.Popen(command)
    last_activity = time.time()
    while True:
        rc = process.poll()
        records, offset = read_journal(journal, offset)
        for record in records:
            last_activity = time.time()
            if record["event"] == "meta":
                meta.update(record["meta"])
            elif record["event"] == "meta_end":
                meta["nvidia_smi_end"] = record["nvidia_smi"]
            elif record["event"] == "fatal":
                run.fatal = record["error"]
            elif record["event"] == "begin":
                run.current, run.progressed = record["id"], True
            elif record["event"] == "end":
                results[record["id"]] = record
                run.current, run.progressed = None, True
        if rc is not None:
            run.rc = rc
            return run, offset
        now = time.time()
        if now - last_activity > stall or (deadline is not None and now > deadline + stall):
            process.kill()
            process.wait()
            run.why = "killed: no progress for %d s (hung kernel?)" % stall
            return run, offset
        time.sleep(0.2)


def orchestrate(args, cake, worker_command=None):
    """Runs the plan in worker processes (worker_command: the command line before --start; the self-test
    gives a fake worker); returns (plan, notes, results by id, meta, fatal error or None, seconds)."""
    worker_command = worker_command or [sys.executable, os.path.abspath(__file__), "--worker"]
    started = time.time()
    deadline = started + args.budget
    plan, notes = make_plan(args, cake)
    os.makedirs(args.out, exist_ok=True)
    journal = os.path.join(args.out, "journal.jsonl")
    open(journal, "w").close()
    results, meta, fatal = {}, {}, None
    start, offset, starts = 0, 0, 0
    while start < len(plan) and fatal is None:
        starts += 1
        if starts > MAX_WORKER_STARTS:
            for item in plan[start:]:
                results[item["id"]] = {"status": "skipped", "detail": "too many worker restarts"}
            break
        command = worker_command + ["--start", str(start), "--journal", journal, "--deadline", repr(deadline)] + \
            worker_passthrough(args)
        run, offset = supervise(command, journal, offset, args.stall, results, meta, deadline)
        current, rc, why = run.current, run.rc, run.why
        fatal = run.fatal
        if fatal is not None or rc == 0 and why is None:
            break
        if not run.progressed:
            fatal = "the worker exited with status %s before running a case (its output above says why)" % rc
            break
        if current is not None and current not in results:
            results[current] = {"status": "error", "error": why or "worker died with exit status %s" % rc}
        done = [i for i in results] + ([current] if current is not None else [])
        start = max(done) + 1 if done else start + 1
    for item in plan:
        if item["id"] not in results:
            results[item["id"]] = {"status": "skipped", "detail": item["skip"] or fatal or "not run"}
    return plan, notes, results, meta, fatal, time.time() - started


def worker_passthrough(args):
    out = ["--cubins", args.cubins, "--sets", str(args.sets)]
    if args.quick:
        out.append("--quick")
    if args.samples:
        out += ["--samples", args.samples]
    if args.iters:
        out += ["--iters", str(args.iters)]
    return out


# =========================================================================================== reporting
def fmt_rate(value, metric):
    if value is None:
        return "-"
    if metric == "GB/s" and value >= 1000:
        return "%.2f TB/s" % (value / 1000)
    return "%.3g %s" % (value, metric) if value < 100 else "%.0f %s" % (value, metric)


def fmt_ms(value):
    return "-" if value is None else "%.4f" % value if value < 10 else "%.2f" % value


def table_rows(plan, results):
    rows = []
    for item in plan:
        r = results[item["id"]]
        checks = r.get("checks") or []
        err = max((c["rel_err"] for c in checks), default=None)
        tol = max((c["tolerance"] for c in checks), default=None)
        metric = r.get("metric", "")
        note = r.get("error") or r.get("detail") or r.get("peer_error") or ""
        rows.append([
            item["sample"], item["dtype"] or "-", item["shape"] or "-", r["status"].upper() if r["status"] in
            ("wrong", "error") else r["status"],
            "-" if err is None else "%.1e (<=%.0e)" % (err, tol),
            fmt_ms((r.get("cake") or {}).get("ms")), fmt_rate((r.get("cake") or {}).get("rate"), metric),
            r.get("peer_name", "-") if r.get("peer") else "-",
            fmt_ms((r.get("peer") or {}).get("ms")), fmt_rate((r.get("peer") or {}).get("rate"), metric),
            "-" if not r.get("ratio") else "%.2f" % r["ratio"],
            note.splitlines()[-1][:90] if note else ""])
    return rows


HEADER = ["sample", "dtype", "shape", "status", "rel err (tol)", "cake ms", "cake", "peer", "peer ms", "peer",
          "cake/peer", "note"]


def markdown_table(rows):
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines)


def acceptance(plan, results):
    """(status, name, detail) lines of the four acceptance checks."""
    checks = []

    def records(sample, accept_only=False):
        return [(item, results[item["id"]]) for item in plan
                if item["sample"] == sample and (not accept_only or item["accept"])]

    def unavailable(sample, name):
        found = records(sample)
        if not found:
            checks.append(("FAIL", name, "%s not in this run" % sample))
            return True
        if found[0][0]["kernel"] is None:
            checks.append(("FAIL", name, found[0][1].get("detail", "no cubin")))
            return True
        return False

    # 1. vector add >= 85% of copy bandwidth
    name = "vector_add >= 85% of copy bandwidth"
    if not unavailable("vector_add", name):
        for item, r in records("vector_add", True):
            if r["status"] == "ok" and r.get("ratio"):
                checks.append(("PASS" if r["ratio"] >= 0.85 else "FAIL", name + " (%s)" % item["shape"],
                               "%s = %.0f%% of copy %s" % (fmt_rate(r["cake"]["rate"], "GB/s"), 100 * r["ratio"],
                                                           fmt_rate(r["peer"]["rate"], "GB/s"))))
            else:
                checks.append(("FAIL", name + " (%s)" % item["shape"], "no measurement: %s %s" % (
                    r["status"], r.get("error") or r.get("detail") or r.get("peer_error") or "")))
    # 2. row softmax at least as fast as torch.softmax on each shape
    name = "row_softmax >= torch.softmax speed"
    if not unavailable("row_softmax", name):
        for item, r in records("row_softmax", True):
            label = "%s (%s %s)" % (name, item["dtype"], item["shape"])
            if r["status"] == "ok" and r.get("peer"):
                checks.append(("PASS" if r["cake"]["ms"] <= r["peer"]["ms"] else "FAIL", label,
                               "cake %.4f ms vs torch %.4f ms" % (r["cake"]["ms"], r["peer"]["ms"])))
            else:
                checks.append(("FAIL", label, "no measurement: %s %s" % (r["status"], r.get("error") or
                                                                          r.get("detail") or "")))
    # 3. ampere gemm bf16 4096^3 >= 50% of cuBLAS
    name = "ampere_gemm bf16 4096^3 >= 50% of cuBLAS"
    if not unavailable("ampere_gemm", name):
        found = [(i, r) for i, r in records("ampere_gemm", True) if i["dtype"] == "bf16" and i["shape"] == "4096^3"]
        if not found:
            checks.append(("FAIL", name, "no bf16 4096^3 case"))
        for item, r in found:
            if r["status"] == "ok" and r.get("ratio"):
                checks.append(("PASS" if r["ratio"] >= 0.5 else "FAIL", name, "%s = %.0f%% of cuBLAS %s" % (
                    fmt_rate(r["cake"]["rate"], "TFLOP/s"), 100 * r["ratio"], fmt_rate(r["peer"]["rate"], "TFLOP/s"))))
            else:
                checks.append(("FAIL", name, "no measurement: %s %s" % (r["status"], r.get("error") or
                                                                         r.get("detail") or r.get("peer_error") or "")))
    # 4. every sample correct on >= 3 shapes (and wrong on none)
    samples = []
    for item in plan:
        key = (item["sample"], item["dtype"])
        if key not in samples:
            samples.append(key)
    for sample, dtype in samples:
        found = [(i, r) for i, r in records(sample) if i["dtype"] == dtype]
        label = "%s%s correct on >= 3 shapes" % (sample, " " + dtype if dtype else "")
        if found[0][0]["kernel"] is None:
            detail = found[0][1].get("detail", "")
            checks.append(("SKIP" if "unsupported" in detail else "FAIL", label, detail))
            continue
        correct = [i["shape"] for i, r in found if r["status"] == "ok"]
        bad = ["%s: %s" % (i["shape"], r["status"]) for i, r in found if r["status"] in ("wrong", "error")]
        refused = sum(1 for _, r in found if r["status"] == "refused")
        status = "PASS" if len(correct) >= 3 and not bad else "FAIL"
        detail = "%d correct (%s)%s%s" % (len(correct), ", ".join(correct),
                                          "; %d refused as required" % refused if refused else "",
                                          "; " + "; ".join(bad) if bad else "")
        checks.append((status, label, detail))
    return checks


def write_measurements(out_dir, document, name):
    """$OUT/measurements.json: the run's measured times in the cost model's calibration format
    (cake-measurements v1, docs/cost-model.md), for `cakec calibrate`."""
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import results_to_measurements
        measurements = results_to_measurements.convert_document(document, name + ".json")
        with open(os.path.join(out_dir, "measurements.json"), "w") as f:
            json.dump(measurements, f, indent=1)
    except Exception as e:   # never lose the bench results over the derived file
        print("measurements.json not written: %s" % e)


def write_reports(args, plan, notes, results, meta, fatal, seconds, cake):
    info = build_info(args.cubins)
    commit, dirty = git_commit(info)
    now = datetime.datetime.now(datetime.timezone.utc)
    name = "%s-%s" % (now.strftime("%Y-%m-%d"), commit[:12])
    checks = acceptance(plan, results)
    rows = table_rows(plan, results)
    document = {
        "format": "cake-bench", "version": 1, "name": name,
        "meta": {"commit": commit, "dirty": dirty, "date": now.isoformat(timespec="seconds"),
                 "mode": "quick" if args.quick else "full", "seconds": round(seconds, 1), "fatal": fatal,
                 "build": info, **meta},
        "notes": notes,
        "cases": [dict(item, result=results[item["id"]]) for item in plan],
        "acceptance": [{"status": s, "check": n, "detail": d} for s, n, d in checks],
    }
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(document, f, indent=1, default=str)
    write_measurements(args.out, json.loads(json.dumps(document, default=str)), name)
    device = meta.get("device", {})
    smi = ((device.get("nvidia_smi") or {}).get("gpus") or [{}])[0]
    smi_end = ((meta.get("nvidia_smi_end") or {}).get("gpus") or [{}])[0]
    header = [
        "# CAKE benchmark %s" % name, "",
        "- commit `%s`%s, %s run, %.0f s, %s" % (commit, " (dirty tree)" if dirty else "",
                                                  "quick" if args.quick else "full", seconds, now.isoformat(timespec="seconds")),
        "- device: %s (cc %s, %s SMs, L2 %s MB), driver %s; SM clock %s at the start, %s at the end (max %s), "
        "memory clock %s, power limit %s"
        % (device.get("name", "?"), device.get("capability", "?"), device.get("sms", "?"),
           (device.get("l2_bytes") or 0) >> 20, smi.get("driver_version", "?"), smi.get("clocks.sm", "?"),
           smi_end.get("clocks.sm", "?"), smi.get("clocks.max.sm", "?"), smi_end.get("clocks.mem", smi.get("clocks.mem", "?")),
           smi.get("power.limit", "?")),
        "- torch %s (CUDA %s), triton %s, python %s, cake runtime %s" % (
            device.get("torch", "?"), device.get("torch_cuda", "?"), device.get("triton", "-"),
            meta.get("python", "?"), meta.get("cake_runtime", "?")),
        "- timing: median GPU time (CUDA events) of >= 50 runs; rotating buffer sets when a run fits in L2; "
        "cake/peer = cake throughput / peer throughput (> 1: cake faster)",
    ]
    if fatal:
        header.append("- **nothing ran: %s**" % fatal)
    for note in notes:
        header.append("- " + note)
    accept_lines = ["%s %s: %s" % (s, n, d) for s, n, d in checks]
    markdown = "\n".join(header) + "\n\n" + markdown_table(rows) + "\n\n## Acceptance\n\n" + \
        "\n".join("- " + line for line in accept_lines) + "\n"
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(markdown)
    print()
    print(markdown_table(rows))
    print()
    for note in notes:
        print("NOTE " + note)
    print("results: %s/results.{json,md}  (commit them as bench/results/%s.{json,md})" % (args.out, name))
    for line in accept_lines:
        print(line)
    failed = sum(1 for s, _, _ in checks if s == "FAIL")
    print("acceptance: %d passed, %d failed, %d skipped" % (
        sum(1 for s, _, _ in checks if s == "PASS"), failed, sum(1 for s, _, _ in checks if s == "SKIP")))
    if fatal:
        return 2
    return 1 if failed else 0


# =========================================================================================== main
def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("OUT"), help="folder for results.{json,md} (default $OUT)")
    parser.add_argument("--quick", action="store_true", help="fewer shapes (under ~90 s)")
    parser.add_argument("--dry-run", action="store_true", help="plan every case without a GPU and exit")
    parser.add_argument("--build", action="store_true", help="run bench/build.sh first")
    parser.add_argument("--samples", help="comma-separated samples to run (default: all)")
    parser.add_argument("--cubins", default=os.path.join(BENCH_DIR, "out"),
                        help="build.sh's output folder (default bench/out)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds after which remaining cases are skipped (default 270, --quick 80)")
    parser.add_argument("--iters", type=int, default=None, help="timed runs per measurement (default adaptive, >= 50)")
    parser.add_argument("--sets", type=int, default=0, help="1: no buffer rotation (default: automatic)")
    parser.add_argument("--stall", type=float, default=150.0,
                        help="seconds without progress after which a case counts as hung and is killed (default 150)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--journal", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=float("inf"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.cubins = os.path.abspath(args.cubins)
    if args.budget is None:
        args.budget = 80.0 if args.quick else 270.0
    if args.iters is not None and args.iters < 1:
        parser.error("--iters must be positive")
    if not args.dry_run and not args.worker and not args.out:
        parser.error("--out DIR is required (or set $OUT), unless --dry-run")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.worker:
        return worker(args)
    if args.build:
        rc = subprocess.run(["bash", os.path.join(BENCH_DIR, "build.sh")]).returncode
        if rc != 0:
            print("run_bench.py: build.sh exited with %d; going on with what was built" % rc)
    cake = use_runtime_library(args.cubins)
    ensure_runtime_loads(cake)
    if not os.path.isdir(args.cubins):
        print("run_bench.py: no %s: run bench/build.sh first (and carry bench/out to the GPU machine)" % args.cubins)
        if args.dry_run:
            return 2
    if args.dry_run:
        return dry_run(args, cake)
    args.out = os.path.abspath(args.out)
    plan, notes, results, meta, fatal, seconds = orchestrate(args, cake)
    return write_reports(args, plan, notes, results, meta, fatal, seconds, cake)


if __name__ == "__main__":
    sys.exit(main())
