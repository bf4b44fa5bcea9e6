#!/usr/bin/env python3
"""Self-test of the benchmark harness without a GPU:  python3 bench/test_bench.py

Needs bench/out (bench/build.sh) and a CPU build of torch.  The harness's GPU path runs on the CPU here:
buffers live on "cpu", CUDA events and synchronize are replaced by host timers, and each kernel launch is
replaced by (1) the real runtime's plan() on the same arguments (dtype, shape, alignment and `requires`
checks of libcake_runtime) and (2) a torch emulation of what the sample computes.  Checked:
  * every small case of the plan runs, checks and times (the large shapes would take minutes on a CPU);
  * a kernel that computes a wrong value, or leaves one element unwritten (NaN), is reported "wrong";
  * shapes the kernel's requires refuses are reported "refused";
  * the orchestrator restarts a worker that crashes or hangs, records that case, and runs the rest;
  * the reports (results.json, results.md) and the acceptance lines.
Prints one line per check and 'N passed, N failed'; exits 1 on a failure."""

import contextlib
import io
import json
import os
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import torch
except ImportError:
    print("test_bench.py: torch is not installed: skipped")
    print("0 passed, 0 failed, 1 skipped")
    sys.exit(0)

import run_bench  # noqa: E402
import measure  # noqa: E402
import cases as case_defs  # noqa: E402

passed, failed = [], []


def check(name, condition, detail=""):
    (passed if condition else failed).append(name)
    print("%s %s%s" % ("PASS" if condition else "FAIL", name, ": " + detail if detail and not condition else ""))


# ------------------------------------------------------------------------------------------- CPU stand-ins
class HostEvent:
    def __init__(self, enable_timing=True):
        self.t = None

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


torch.cuda.Event = HostEvent
torch.cuda.synchronize = lambda *a, **k: None
torch.cuda._sleep = lambda cycles: None
torch.cuda.empty_cache = lambda: None
measure.DEVICE = "cpu"
measure.l2_bytes = lambda: case_defs.L2_BYTES_DEFAULT


def emulate(sample, chunk):
    """What each sample computes, in torch (the reference semantics, written independently of cases.py)."""
    def vector_add(a, b, c):
        c.copy_((a.float() + b.float()).to(c.dtype))

    def block_reduce_sum(x, p):
        padded = torch.nn.functional.pad(x, (0, p.numel() * chunk - x.numel()))
        p.copy_(padded.view(p.numel(), chunk).sum(1))

    def row_softmax(x, y):
        y.copy_(torch.softmax(x.float(), dim=1).to(y.dtype))

    def gemm(a, b, c):
        c.copy_((a.float() @ b.float()).to(c.dtype))

    def gemm_bt(a, b, c):           # the Hopper GEMMs: B is [N, K] (C = A * B^T)
        c.copy_((a.float() @ b.float().t()).to(c.dtype))

    def copy(x, y):
        y.copy_(x)

    return {"vector_add": vector_add, "block_reduce_sum": block_reduce_sum, "row_softmax": row_softmax,
            "simt_gemm": gemm, "ampere_gemm": gemm, "hopper_gemm": gemm_bt, "hopper_gemm_persistent": gemm_bt,
            "hopper_gemm_tma_epilogue": gemm_bt, "tma_copy": copy}[sample]


class EmulatedKernel:
    def __init__(self, real, fn, sabotage=None):
        self.real, self.fn, self.sabotage = real, fn, sabotage
        self.launches = 0

    def __call__(self, *tensors):
        cake = run_bench.use_runtime_library(ARGS.cubins)
        fakes = [cake.DevicePtr(t.data_ptr(), shape=tuple(t.shape), dtype=case_defs_dtype(t), strides=t.stride())
                 for t in tensors]
        self.real.plan(*fakes, num_sms=132)   # the runtime's checks (an H200's SM count: no device here)
        self.fn(*tensors)
        self.launches += 1
        if self.sabotage:
            self.sabotage(tensors[-1])


def case_defs_dtype(t):
    return {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}[t.dtype]


class EmulatedModule:
    def __init__(self, real_module, sample, chunk, sabotage):
        self.kernels = {name: EmulatedKernel(k, emulate(sample, chunk), sabotage)
                        for name, k in real_module.kernels.items()}

    def __getitem__(self, name):
        return self.kernels[name]


class EmulatedCache(run_bench.CaseCache):
    sabotage = {}

    def get(self, item):
        case, module, shape = super().get(item)
        sample = item["sample"]
        if not isinstance(module, EmulatedModule):
            chunk = case.chunk() if sample == "block_reduce_sum" else None
            module = EmulatedModule(module, sample, chunk, self.sabotage.get(sample))
            self.modules[item["cubin"]] = module
        return case, module, shape


def small(item):
    dims = item["dims"]
    return (dims.get("N", 1) * dims.get("M", 1) * dims.get("K", 1) <= 1 << 27 and
            dims.get("R", 1) * dims.get("C", 1) <= 1 << 22 and dims.get("N", 1) <= 1 << 22)


ARGS = run_bench.parse_args(["--dry-run", "--iters", "3"])


def run_items(plan, cache, cake):
    seeds = iter(range(1, 1 << 40))
    results = {}
    for item in plan:
        if item["skip"] or not small(item):
            continue
        try:
            results[item["id"]] = run_bench.run_case(item, cache, cake, ARGS, seeds)
        except Exception as error:  # noqa: BLE001
            results[item["id"]] = {"status": "error", "error": "%s: %s" % (type(error).__name__, error)}
    return results


# ------------------------------------------------------------------------------------------- tests
def test_dry_run(cake):
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        rc = run_bench.dry_run(ARGS, cake)
    text = output.getvalue()
    check("dry run plans every case without problems", rc == 0 and " 0 problem(s)" in text, text[-500:])
    check("dry run shows launch plans and expected refusals", "grid=(131072, 1, 1)" in text and
          "refused as expected" in text, text[:500])


def test_cases_emulated(cake):
    plan, _ = run_bench.make_plan(ARGS, cake)
    results = run_items(plan, EmulatedCache(cake), cake)
    by_item = [(item, results[item["id"]]) for item in plan if item["id"] in results]
    check("small cases ran", len(by_item) >= 15, "%d ran" % len(by_item))
    for item, r in by_item:
        want = "refused" if item["expect_reject"] else "ok"
        check("emulated %s: %s" % (run_bench.describe(item), want), r["status"] == want,
              json.dumps({k: v for k, v in r.items() if k in ("status", "error", "detail", "checks")})[:400])
        if want == "ok":
            check("  two checks, timing and peer recorded", len(r["checks"]) >= 2 and r["cake"]["iters"] == 3
                  and r["peer"]["ms"] > 0 and r.get("ratio") is not None, str(r.get("peer_error")))
    sets = [r["cake"]["sets"] for item, r in by_item if item["shape"] == "N=4000" and "cake" in r]
    check("small working sets rotate over several buffer sets", sets and min(sets) > 1, str(sets))
    return plan, results


def test_detects_wrong_results(cake):
    plan, _ = run_bench.make_plan(ARGS, cake)

    def off_by_a_bit(out):
        out.view(-1)[out.numel() // 2] += 5.0        # one wrong element

    def one_left_unwritten(out):
        out.view(-1)[-1] = float("nan")              # as if the tail were never stored

    def stale(out):
        pass

    for sample, sabotage, label in [("vector_add", one_left_unwritten, "unwritten tail element"),
                                    ("row_softmax", off_by_a_bit, "one wrong element"),
                                    ("simt_gemm", off_by_a_bit, "one wrong element"),
                                    ("block_reduce_sum", one_left_unwritten, "unwritten final sum")]:
        EmulatedCache.sabotage = {sample: sabotage}
        items = [i for i in plan if i["sample"] == sample and not i["expect_reject"] and small(i)][:2]
        results = run_items(items, EmulatedCache(cake), cake)
        statuses = [results[i["id"]]["status"] for i in items]
        check("%s with %s is reported wrong" % (sample, label), statuses and set(statuses) == {"wrong"},
              str(statuses))
    # one element off by 0.5 in a 384x1152 product (rms 14): the norm error stays under 1e-4, the outlier test
    # catches it
    def slightly_off(out):
        out.view(-1)[12345] += 0.5

    EmulatedCache.sabotage = {"simt_gemm": slightly_off}
    items = [i for i in plan if i["sample"] == "simt_gemm" and i["shape"] == "384x1152x200"]
    r = run_items(items, EmulatedCache(cake), cake)[items[0]["id"]]
    check("one slightly wrong element is caught by the outlier test", r["status"] == "wrong" and
          r["checks"][0]["rel_err"] < 1e-4 and r["checks"][0]["outliers"] == 1, str(r.get("checks")))
    EmulatedCache.sabotage = {}
    # a kernel that writes nothing: every output stays NaN-poisoned
    EmulatedCache.sabotage = {}
    items = [i for i in plan if i["sample"] == "vector_add" and i["shape"] == "N=1007"]
    cache = EmulatedCache(cake)
    cache.get(items[0])
    cache.modules[items[0]["cubin"]].kernels["vector_add"].fn = lambda a, b, c: None
    results = run_items(items, cache, cake)
    r = results[items[0]["id"]]
    check("a kernel that writes nothing is wrong (NaN left)", r["status"] == "wrong" and
          r["checks"][0]["nan_count"] == 1007, str(r.get("checks")))


def test_reports(cake, plan, results):
    with tempfile.TemporaryDirectory() as out:
        args = run_bench.parse_args(["--out", out, "--iters", "3"])
        full = {item["id"]: results.get(item["id"], {"status": "skipped", "detail": item["skip"] or "too big for the CPU"})
                for item in plan}
        with contextlib.redirect_stdout(io.StringIO()):   # its FAIL lines are the CPU run's, not the test's
            rc = run_bench.write_reports(args, plan, ["a note"], full, {"device": {"name": "CPU (self-test)"}},
                                         None, 1.0, cake)
        document = json.load(open(os.path.join(out, "results.json")))
        markdown = open(os.path.join(out, "results.md")).read()
    check("results.json has every case", len(document["cases"]) == len(plan))
    check("results.json names the commit", document["meta"]["commit"] not in ("", None))
    check("results.md has the table and the acceptance section",
          "| sample |" in markdown and "## Acceptance" in markdown and "a note" in markdown)
    statuses = {a["check"]: a["status"] for a in document["acceptance"]}
    check("unmeasured vector_add bandwidth check fails", statuses.get("vector_add >= 85% of copy bandwidth (N=2^28)")
          == "FAIL", str(statuses))
    check("a sample codegen does not support yet is SKIP", any(s == "SKIP" for s in statuses.values()) or
          all(i["skip"] is None for i in plan), str(statuses))
    check("a correct sample passes the >= 3 shapes check", statuses.get("vector_add bf16 correct on >= 3 shapes")
          == "PASS", str(statuses))
    check("exit status 1 when an acceptance check fails", rc == 1)


def test_acceptance_thresholds():
    plan = [dict(id=0, sample="vector_add", dtype="bf16", shape="N=2^28", accept=True, kernel="vector_add",
                 expect_reject=False, skip=None),
            dict(id=1, sample="ampere_gemm", dtype="bf16", shape="4096^3", accept=True, kernel="ampere_gemm",
                 expect_reject=False, skip=None),
            dict(id=2, sample="row_softmax", dtype="bf16", shape="4096x1024", accept=True, kernel="row_softmax",
                 expect_reject=False, skip=None)]
    mk = lambda ms, pms, ratio: {"status": "ok", "cake": {"ms": ms, "rate": 1.0}, "peer": {"ms": pms, "rate": 1.0},
                                 "ratio": ratio, "checks": []}
    results = {0: mk(1.0, 0.9, 0.90), 1: mk(2.0, 1.1, 0.55), 2: mk(0.5, 0.4, 0.8)}
    lines = {n: s for s, n, _ in run_bench.acceptance(plan, results)}
    check("vector_add at 90% of copy passes", lines["vector_add >= 85% of copy bandwidth (N=2^28)"] == "PASS")
    check("ampere at 55% of cuBLAS passes", lines["ampere_gemm bf16 4096^3 >= 50% of cuBLAS"] == "PASS")
    check("softmax slower than torch fails", lines["row_softmax >= torch.softmax speed (bf16 4096x1024)"] == "FAIL")
    results = {0: mk(1.0, 0.8, 0.80), 1: mk(2.0, 0.9, 0.45), 2: mk(0.4, 0.5, 1.25)}
    lines = {n: s for s, n, _ in run_bench.acceptance(plan, results)}
    check("vector_add at 80% of copy fails", lines["vector_add >= 85% of copy bandwidth (N=2^28)"] == "FAIL")
    check("ampere at 45% of cuBLAS fails", lines["ampere_gemm bf16 4096^3 >= 50% of cuBLAS"] == "FAIL")
    check("softmax faster than torch passes", lines["row_softmax >= torch.softmax speed (bf16 4096x1024)"] == "PASS")
    check("one correct shape is not enough", lines["vector_add bf16 correct on >= 3 shapes"] == "FAIL")


FAKE_WORKER = r'''
import json, sys, time
args = sys.argv[1:]
start = int(args[args.index("--start") + 1]); journal = args[args.index("--journal") + 1]
total = int(open(sys.argv[0] + ".count").read())
f = open(journal, "a")
def w(r): f.write(json.dumps(r) + "\n"); f.flush()
if start == 0: w({"event": "meta", "meta": {"device": {"name": "fake"}}})
for i in range(start, total):
    w({"event": "begin", "id": i})
    if i == 2: sys.exit(3)               # the context broke during case 2
    if i == 4: time.sleep(60)            # case 4 hangs
    if i == 6: import os; os._exit(139)  # case 6 crashes the process
    w({"event": "end", "id": i, "status": "ok"})
'''


def test_orchestrator_restarts(cake):
    with tempfile.TemporaryDirectory() as out:
        script = os.path.join(out, "fake_worker.py")
        open(script, "w").write(FAKE_WORKER)
        args = run_bench.parse_args(["--out", out, "--stall", "2", "--samples", "vector_add,block_reduce_sum"])
        plan, _ = run_bench.make_plan(args, cake)
        open(script + ".count", "w").write(str(len(plan)))
        t0 = time.time()
        plan, notes, results, meta, fatal, seconds = run_bench.orchestrate(args, cake, [sys.executable, script])
        statuses = [results[i]["status"] for i in range(len(plan))]
    check("orchestrator: every case has a result", len(results) == len(plan), str(statuses))
    check("orchestrator: the broken, hung and crashed cases are errors, the others ran",
          statuses[2] == statuses[4] == statuses[6] == "error" and
          all(s == "ok" for i, s in enumerate(statuses) if i not in (2, 4, 6)), str(statuses))
    check("orchestrator: the hung case was killed after --stall", "no progress" in results[4]["error"] and
          time.time() - t0 < 30, results[4].get("error", ""))
    check("orchestrator: meta from the first worker kept", meta.get("device", {}).get("name") == "fake")
    check("orchestrator: no fatal error", fatal is None, str(fatal))


def main():
    cake = run_bench.use_runtime_library(ARGS.cubins)
    if not os.path.isdir(ARGS.cubins):
        print("test_bench.py: no %s: run bench/build.sh first: skipped" % ARGS.cubins)
        print("0 passed, 0 failed, 1 skipped")
        return 0
    test_dry_run(cake)
    plan, results = test_cases_emulated(cake)
    test_detects_wrong_results(cake)
    test_reports(cake, plan, results)
    test_acceptance_thresholds()
    test_orchestrator_restarts(cake)
    print("%d passed, %d failed" % (len(passed), len(failed)))
    for name in failed:
        print("  failed: " + name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
