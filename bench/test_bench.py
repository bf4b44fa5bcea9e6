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


# ------------------------------------------------------------------------------------------- fragment-sample benches
def test_fragment_sample_benches(cake):
    """attention_bench, gemm_bias_act_bench, kmeans_assign_bench: planning, references written independently
    here, the checks (a deliberately wrong output must fail), input guard, timing and floor, acceptance."""
    import fragment_samples_common as common
    import attention_bench as att
    import gemm_bias_act_bench as gba
    import kmeans_assign_bench as km
    common.DEVICE = "cpu"
    f = torch.nn.functional
    flusher = common.L2Flusher(torch, l2_bytes=1 << 16)
    seeds = common.Seeds(7)

    # common: guard, poison, timing, floor, bind
    x = torch.randn(8)
    guard = common.InputGuard({"x": x})
    check("fragment samples: untouched input passes the guard", guard.changed() == [])
    x[3] += 1
    check("fragment samples: a modified input is caught", guard.changed() == ["x"])
    check("fragment samples: poisoned outputs", torch.isnan(common.poisoned(torch, (4,), torch.float32)).all().item() and
          (common.poisoned(torch, (4,), torch.int32) == common.INT_SENTINEL).all().item())
    order = []
    t = common.time_interleaved(torch, {"a": lambda: order.append("a"), "b": lambda: order.append("b")}, flusher,
                                rounds=2, iters=3)
    check("fragment samples: interleaved timing: every run sampled, order rotates", t["a"]["iters"] == 6 and
          t["b"]["iters"] == 6 and order[-12:] == ["a"] * 3 + ["b"] * 3 + ["b"] * 3 + ["a"] * 3, str(order))
    check("fragment samples: a time under the physical floor is flagged",
          not common.add_rates({"ms": 1e-3}, 1e12, 0) and common.add_rates({"ms": 10.0}, 1e12, 1 << 30))
    manifest = {"kernels": [{"params": [{"name": "Q"}, {"name": "K"}, {"name": "V"}, {"name": "O"}, {"name": "L"}],
                             "ct_params": {"CAUSAL": 1, "HD": 64}}]}
    check("fragment samples: arguments bound by parameter name", common.bind(
        manifest, {"Q": 1, "K": 2, "V": 3, "O": 4, "LSE": 5}, att.ALIASES) == [1, 2, 3, 4, 5])
    try:
        common.bind(manifest, {"Q": 1}, {})
        check("fragment samples: an unknown kernel parameter is an error", False)
    except KeyError:
        check("fragment samples: an unknown kernel parameter is an error", True)

    # attention: plan, kernel choice, reference, checks
    labels = [c.label for c in att.cases()]
    check("attention: the required cases", all(l in labels for l in [
        "4x16x8192x128", "4x16x8192x128 causal", "16x16x2048x64", "16x16x2048x64 causal", "4x8x1000x128",
        "2x4x333x64 causal"]), str(labels))
    check("attention: causal flops are half", att.Case(1, 1, 64, 64, True).flops * 2 == att.Case(1, 1, 64, 64,
                                                                                                   False).flops)
    mk = lambda causal, hd: {"kernels": [{"params": [], "ct_params": {"CAUSAL": causal, "HD": hd}}]}
    ks = [("nc64", "p", mk(0, 64)), ("c64", "p", mk(1, 64)), ("nc128", "p", mk(0, 128))]
    pick = lambda causal, d: (att.select_kernel(ks, att.Case(1, 1, 64, d, causal)) or [None])[0]
    check("attention: kernel chosen by CAUSAL and HD", pick(True, 64) == "c64" and pick(False, 128) == "nc128"
          and pick(True, 128) is None, str([pick(True, 64), pick(False, 128), pick(True, 128)]))

    def attention64(q, k, v, causal):       # float64, row by row: independent of attention_bench.reference
        b, h, t, d = q.shape
        o = torch.empty(b, h, t, d, dtype=torch.float64)
        lse = torch.empty(b, h, t, dtype=torch.float64)
        for i in range(t):
            n = i + 1 if causal else t
            s = torch.einsum("bhd,bhjd->bhj", q[:, :, i].double(), k[:, :, :n].double()) / d ** 0.5
            lse[:, :, i] = torch.logsumexp(s, -1)
            o[:, :, i] = torch.einsum("bhj,bhjd->bhd", torch.softmax(s, -1), v[:, :, :n].double())
        return o, lse

    q, k, v = (torch.randn(2, 2, 37, 16).bfloat16() for _ in range(3))
    for causal in (False, True):
        o_ref, lse_ref = att.reference(torch, q, k, v, causal)
        o64, lse64 = attention64(q, k, v, causal)
        check("attention: reference (causal=%s) matches a row-by-row float64 one" % causal,
              (o_ref.double() - o64).abs().max().item() < 1e-4 and (lse_ref.double() - lse64).abs().max().item() < 1e-4)

    def att_kernel(sabotage=None, causal_override=None):
        def run(q, k, v, o, lse):
            causal = run.causal if causal_override is None else causal_override
            o64, lse64 = attention64(q, k, v, causal)
            o.copy_(o64.to(o.dtype))
            lse.copy_(lse64.float())
            if sabotage:
                sabotage(q, o, lse)
        return run

    sdpa_cpu = {"sdpa_flash": lambda q, k, v, c: f.scaled_dot_product_attention(q, k, v, is_causal=c)}
    case = att.Case(1, 2, 45, 16, True)
    good = att_kernel()
    good.causal = True
    r = att.run_case(torch, case, good, sdpa_cpu, seeds, flusher, True, 1, 2)
    check("attention: a correct kernel passes both checks, timed with its peer", r["status"] == "ok" and
          len(r["checks"]) == 2 and not r["checks"][1]["inputs_changed"] and r["checks"][1]["reference_first"] and
          "cake_over_sdpa_flash" in r and r["peer_checks"]["sdpa_flash"]["ok"], str(r.get("checks"))[:400])

    def bad(name, sabotage=None, causal_override=None):
        kernel = att_kernel(sabotage, causal_override)
        kernel.causal = True
        r = att.run_case(torch, case, kernel, {}, seeds, flusher, False)
        check("attention: %s is wrong" % name, r["status"] == "wrong", str(r.get("checks"))[:300])

    def one_o(q, o, lse):
        o.view(-1)[o.numel() // 3] += 4.0
    def lse_row(q, o, lse):
        lse.view(-1)[7] += 0.05
    def o_tail(q, o, lse):
        o.view(-1)[-1] = float("nan")
    def touches_q(q, o, lse):
        q.view(-1)[0] = 0.0
    bad("one wrong O element", one_o)
    bad("one LSE row off by 0.05", lse_row)
    bad("an unwritten O element", o_tail)
    bad("a kernel that writes its input", touches_q)
    bad("a non-causal result on a causal case", causal_override=False)
    acc = att.acceptance([{"case": "x", "accept": True, "status": "ok", "cake_over_sdpa_flash": 1.25},
                          {"case": "y", "accept": True, "status": "ok", "cake_over_sdpa_flash": 1.1},
                          {"case": "z", "accept": True, "status": "peers-only"}], False)
    check("attention: acceptance >= 1.2x FA2", [a[0] for a in acc] == ["PASS", "FAIL", "SKIP"], str(acc))

    # gemm_bias_act: activations, checks, slowdown acceptance, the plain persistent cubin's plans
    z = torch.linspace(-6, 6, 1001)
    check("gemm_bias_act: activations match torch's (relu, gelu tanh, silu)",
          (gba.activation(torch, 0, z) - f.relu(z)).abs().max().item() < 1e-6 and
          (gba.activation(torch, 1, z) - f.gelu(z, approximate="tanh")).abs().max().item() < 1e-5 and
          (gba.activation(torch, 2, z) - f.silu(z)).abs().max().item() < 1e-5)

    def gemm_kernel(act, sabotage=None):
        def launch(a, b, bias, c):
            acc = a.double() @ b.double().t()
            if act is not None:
                acc = {0: f.relu, 1: lambda x: f.gelu(x, approximate="tanh"), 2: f.silu}[act](acc + bias.double())
            c.copy_(acc.to(c.dtype))
            if sabotage:
                sabotage(c)
        return launch

    shape = gba.Shape(70, 48, 40)
    kernels = [gba.Kernel(gba.PLAIN, None, {}, None, gemm_kernel(None))] + \
        [gba.Kernel("gemm_bias_act_%s" % gba.ACTS[a], None, {}, a, gemm_kernel(a)) for a in gba.ACTS]
    r = gba.run_shape(torch, shape, kernels, seeds, flusher, True, 1, 2)
    check("gemm_bias_act: correct kernels pass, timed against the plain GEMM and torch", r["status"] == "ok" and
          len(r["slowdown_vs_plain"]) == 3 and len(r["timing"]) == 10 and
          all(len(c) == 2 for c in r["checks"].values()), json.dumps(r.get("checks"))[:300])
    for label, k in [("gelu computed as relu", gba.Kernel("g", None, {}, 1, gemm_kernel(0))),
                     ("bias left out", gba.Kernel("s", None, {}, 2, gemm_kernel(None))),
                     ("one element off", gba.Kernel("r", None, {}, 0, gemm_kernel(
                         0, lambda c: c.view(-1)[100].add_(3.0))))]:
        r = gba.run_shape(torch, shape, [k], seeds, flusher, False)
        check("gemm_bias_act: %s is wrong" % label, r["status"] == "wrong", json.dumps(r["checks"])[:300])
    recs = [{"shape": "4096^3", "status": "ok", "slowdown_vs_plain": {"a": 1.02, "b": 1.05}}]
    acts = [gba.Kernel("a", None, {}, 0), gba.Kernel("b", None, {}, 1)]
    acc = gba.acceptance(recs, acts)
    check("gemm_bias_act: within 3% passes, 5% slower fails", [a[0] for a in acc] == ["PASS", "FAIL"], str(acc))
    check("gemm_bias_act: no bias_act cubin is SKIP", gba.acceptance(recs, [])[0][0] == "SKIP")
    import subprocess
    listed = subprocess.run(["bash", os.path.join(HERE, "fragment_samples_build.sh"), "--list"], capture_output=True,
                            text=True).stdout.splitlines()
    check("fragment_samples_build.sh: the plain GEMM and one gemm_bias_act variant per ACT",
          "hopper_gemm_persistent|hopper_gemm_persistent|" in listed and
          all("gemm_bias_act_%s|gemm_bias_act|ACT=%d" % (n, a) in listed
              for a, n in ((0, "relu"), (1, "gelu"), (2, "silu"))), str(listed))
    fragments = os.path.join(ARGS.cubins, "fragments")
    found = gba.find_kernels(fragments, peers_only=False)
    if any(k.name == gba.PLAIN for k in found):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = gba.dry_run(gba.parse_args(["--dry-run", "--cubins", fragments]), cake, found)
        check("gemm_bias_act: the runtime plans every shape of every cubin", rc == 0 and "0 problem(s)" in
              out.getvalue(), out.getvalue()[-400:])

    # kmeans_assign: inputs, reference, checks
    kshape = km.Shape(300, 37, 16)
    inputs, _ = km.make_inputs(torch, kshape, common.Seeds(3))
    X, C, CN = inputs["X"], inputs["C"], inputs["CN"]
    same = (C.unsqueeze(1) == C.unsqueeze(0)).all(-1).sum().item() - C.shape[0]
    check("kmeans: stress inputs hold exact duplicate centroids", same >= 2, str(same))
    d64 = ((X.double().unsqueeze(1) - C.double().unsqueeze(0)) ** 2).sum(-1)
    lab64 = torch.tensor([min(range(C.shape[0]), key=lambda j: (d64[i, j].item(), j)) for i in range(X.shape[0])])
    labels, partial = km.reference(torch, X, C, CN)
    check("kmeans: reference labels = float64 brute force (ties: smallest index)",
          (labels == lab64).float().mean().item() > 0.99, str((labels != lab64).sum().item()))

    def km_out(labels_src):
        lab = labels_src.to(torch.int32).clone()
        mind = (CN.unsqueeze(0) - 2.0 * X.float() @ C.float().t()).gather(1, lab.long().unsqueeze(1)).squeeze(1)
        return lab, mind

    lab, mind = km_out(labels)
    r = km.check_outputs(torch, X, C, CN, lab, mind)
    check("kmeans: the reference's own output passes", r["ok"] and r["wrong_labels"] == 0, str(r))
    far = d64[0].argmax().item()
    wrong = lab.clone()
    wrong[0] = far
    check("kmeans: a label pointing at a far centroid is wrong", not km.check_outputs(
        torch, X, C, CN, wrong, km_out(wrong)[1])["ok"])
    first = (C.unsqueeze(1) == C.unsqueeze(0)).all(-1).float().argmax(1)        # first identical row of each
    dup = (first != torch.arange(C.shape[0])).nonzero().flatten()
    j = dup[0].item()
    tie = lab.clone()
    tie[0] = j
    r = km.check_outputs(torch, X, C, CN, tie, km_out(tie)[1])
    check("kmeans: the larger index of an identical pair is wrong", not r["ok"] and r["dup_larger_index"] >= 1, str(r))
    left = lab.clone()
    left[-1] = common.INT_SENTINEL
    check("kmeans: an unwritten label is wrong", km.check_outputs(torch, X, C, CN, left, mind)["sentinel_left"] == 1)
    off = mind.clone()
    off[5] += 1.0
    check("kmeans: a wrong min distance is wrong", km.check_outputs(torch, X, C, CN, lab, off)["dist_bad"] == 1)
    # a near tie: two centroids at (almost) the same distance; the other label is accepted and counted
    Cn = torch.tensor([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]).bfloat16()
    Xn = torch.tensor([[0.5, 0.5], [4.0, 4.0]]).bfloat16()
    CNn = (Cn.float() ** 2).sum(1)
    ln = torch.tensor([1, 2], dtype=torch.int32)
    mn = (CNn.unsqueeze(0) - 2.0 * Xn.float() @ Cn.float().t()).gather(1, ln.long().unsqueeze(1)).squeeze(1)
    r = km.check_outputs(torch, Xn, Cn, CNn, ln, mn)
    check("kmeans: a near-tie flip is accepted and counted", r["ok"] and r["near_ties"] == 1, str(r))

    def km_kernel(x, c, cn, labels_out, mind_out):
        lab, m = km.reference(torch, x, c, cn)
        labels_out.copy_(lab.to(torch.int32))
        mind_out.copy_(m)
    r = km.run_shape(torch, km.Shape(500, 40, 16), km_kernel, seeds, flusher, True, 1, 2)
    check("kmeans: a correct kernel passes both checks, timed with the torch peers", r["status"] == "ok" and
          len(r["checks"]) == 2 and set(r["timing"]) == {"cake", "torch_mm_argmin", "torch_cdist_argmin"},
          str(r.get("checks"))[:300])
    # fragment_samples_small: every family's small ragged launches through the same checks; one wrong kernel fails it
    import fragment_samples_small
    saved = (common.find_cubins, common.use_runtime, att.cake_candidate, km.cake_candidate, gba.find_kernels,
             sys.argv)
    ct = {"attention_fwd": [("att_nc", "p", mk(0, 128)), ("att_c", "p", mk(1, 128)), ("att_nc64", "p", mk(0, 64)),
                            ("att_c64", "p", mk(1, 64))], "kmeans_assign": [("km", "p", {"kernels": [{}]})]}

    def att_for(path, manifest):
        kernel = att_kernel()
        kernel.causal = bool(common.ct_params(manifest)["CAUSAL"])
        return kernel

    def run_small(gemm_sabotage=None):
        common.find_cubins = lambda folder, prefix: ct.get(prefix, [])
        common.use_runtime = lambda folder: None
        att.cake_candidate = lambda cake, path, manifest: att_for(path, manifest)
        km.cake_candidate = lambda cake, path, manifest: km_kernel
        gba.find_kernels = lambda folder, peers_only: [gba.Kernel(gba.PLAIN, None, {}, None, gemm_kernel(None))] + \
            [gba.Kernel("gba%d" % a, None, {}, a, gemm_kernel(a, gemm_sabotage)) for a in gba.ACTS]
        sys.argv = ["fragment_samples_small.py", "/fake"]
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                rc = fragment_samples_small.main()
        finally:
            (common.find_cubins, common.use_runtime, att.cake_candidate, km.cake_candidate, gba.find_kernels,
             sys.argv) = saved
        return rc, out.getvalue()

    rc, text = run_small()
    check("fragment_samples_small: every family's small launches pass", rc == 0 and text.count(" ok") == 4 + 8 + 4,
          text[-600:])
    rc, text = run_small(lambda c: c.view(-1)[-1].add_(7.0))
    check("fragment_samples_small: a kernel wrong in its last element fails the run", rc == 1 and "WRONG" in text,
          text[-600:])
    common.DEVICE = "cuda"


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
    test_fragment_sample_benches(cake)
    print("%d passed, %d failed" % (len(passed), len(failed)))
    for name in failed:
        print("  failed: " + name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
