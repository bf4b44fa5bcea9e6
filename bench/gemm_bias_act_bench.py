#!/usr/bin/env python3
"""GEMM + bias + activation epilogue on the H200: samples/gemm_bias_act.cake (one cubin per -D ACT=0/1/2)
against the plain persistent GEMM (samples/hopper_gemm_persistent.cake, same schedule, no epilogue math) and
torch, in the same process.

    bash bench/fragment_samples_build.sh                                     # development machine: bench/out/fragments/
    python3 bench/gemm_bias_act_bench.py --dry-run                  # anywhere: cases, kernels, launch plans
    python3 bench/gemm_bias_act_bench.py --out DIR [--peers-only]   # GPU machine: DIR/gemm_bias_act.{json,md}

Problem: C = act(A B^T + bias[n]), A bf16 [M, K], B bf16 [N, K] (K-major), bias f32 [N], C bf16 [M, N];
act 0 relu, 1 gelu (tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), 2 silu (x sigmoid(x)).
The bias is f32: added to the f32 accumulator before the activation with no rounding, 4 bytes per column
(negligible next to the tile's operand traffic).  Kernels: bench/out/fragments/gemm_bias_act*.cubin (the
manifest's ACT picks the activation; parameters bind by name A, B, bias, C) and
bench/out/fragments/hopper_gemm_persistent.cubin (A, B, C).  --peers-only leaves out the gemm_bias_act cubins
(the plain persistent GEMM and torch still run).

Per shape: fresh seeded inputs, poisoned outputs (NaN), inputs compared with copies after each kernel ran;
each kernel checked twice (kernel before the float32 reference, then on a new seed the reference first):
||C - ref|| / ||ref|| <= 1e-2 and bench/measure.py's outlier test, no NaN left.  Timing
(bench/fragment_samples_common.py, L2 flushed before each run, interleaved rounds, median) of: the plain GEMM, each
bias+act kernel, torch `act(torch.matmul(a, b.t()) + bias_bf16)` and `act(F.linear(a, b, bias_bf16))` (bf16
bias for torch so its output stays bf16).  TFLOP/s = 2 M N K / time.  Acceptance (the issue's): every
bias+act kernel at most 3% slower than the plain persistent GEMM at 4096^3 and 8192^3.
Exit: 0 all correct and every acceptance check that could run passed, 1 otherwise, 2 nothing could run."""

import argparse
import math
import os
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)

import fragment_samples_common as common  # noqa: E402

TOL = 1e-2
ACTS = {0: "relu", 1: "gelu_tanh", 2: "silu"}
PLAIN = "hopper_gemm_persistent"
ACCEPT_SLOWDOWN = 1.03
ALIASES = {"Bias": "bias", "BIAS": "bias"}


class Shape:
    def __init__(self, m, n, k, accept=False, label=None):
        self.m, self.n, self.k, self.accept = m, n, k, accept
        self.label = label or "%dx%dx%d" % (m, n, k)

    @property
    def flops(self):
        return 2 * self.m * self.n * self.k

    @property
    def nbytes(self):
        return 2 * (self.m * self.k + self.n * self.k + self.m * self.n) + 4 * self.n


def shapes():
    return [Shape(4096, 4096, 4096, True, "4096^3"), Shape(8192, 8192, 8192, True, "8192^3"),
            Shape(4000, 4000, 4096), Shape(1007, 1000, 1000), Shape(200, 264, 72)]


# =========================================================================================== reference / check
def activation(torch, act, x):
    """The activation in float32, written out (not torch's fused versions)."""
    if act == 0:
        return torch.clamp_min(x, 0.0)
    if act == 1:
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))
    if act == 2:
        return x * torch.sigmoid(x)
    raise ValueError("unknown activation %r" % act)


def reference(torch, a, b, bias, act):
    """float32 act(A B^T + bias) (act None: the plain product)."""
    c = torch.matmul(a.float(), b.float().t())
    if act is None:
        return c
    return activation(torch, act, c + bias.float())


def torch_peers(torch, act, a, b, bias_bf16):
    """{name: zero-argument callable}: the two torch formulations of the epilogue, bf16 throughout."""
    f = torch.nn.functional
    fused = {0: torch.relu, 1: lambda x: f.gelu(x, approximate="tanh"), 2: f.silu}[act]
    return {"torch_matmul_%s" % ACTS[act]: lambda: fused(torch.matmul(a, b.t()) + bias_bf16),
            "torch_linear_%s" % ACTS[act]: lambda: fused(f.linear(a, b, bias_bf16))}


# =========================================================================================== kernels
class Kernel:
    """A cubin of this bench: name, act (None: the plain GEMM), the launch fn(a, b, bias, c)."""

    def __init__(self, name, path, manifest, act, launch=None):
        self.name, self.path, self.manifest, self.act = name, path, manifest, act
        self.launch = launch

    def bound(self, cake):
        if self.launch is None:
            kernel = next(iter(cake.load(self.path).kernels.values()))
            manifest = self.manifest

            def launch(a, b, bias, c):
                kernel(*common.bind(manifest, {"A": a, "B": b, "bias": bias, "C": c}, ALIASES))
            self.launch = launch
        return self.launch


def find_kernels(cubins, peers_only):
    out = []
    for name, path, manifest in common.find_cubins(cubins, PLAIN):
        if name == PLAIN:
            out.append(Kernel(name, path, manifest, None))
    if not peers_only:
        for name, path, manifest in common.find_cubins(cubins, "gemm_bias_act"):
            out.append(Kernel(name, path, manifest, int(common.ct_params(manifest).get("ACT", 0))))
    return out


# =========================================================================================== one shape
def make_inputs(torch, shape, seeds):
    gen, seed = seeds.generator(torch)
    return {"A": common.randn(torch, (shape.m, shape.k), torch.bfloat16, gen),
            "B": common.randn(torch, (shape.n, shape.k), torch.bfloat16, gen),
            "bias": common.randn(torch, (shape.n,), torch.float32, gen, scale=4.0)}, seed


def check_kernel(torch, shape, kernel, seeds, reference_first):
    import measure
    inputs, seed = make_inputs(torch, shape, seeds)
    a, b, bias = inputs["A"], inputs["B"], inputs["bias"]
    c = common.poisoned(torch, (shape.m, shape.n), torch.bfloat16)
    guard = common.InputGuard(inputs)
    ref = reference(torch, a, b, bias, kernel.act) if reference_first else None
    kernel.launch(a, b, bias, c)
    torch.cuda.synchronize()
    changed = guard.changed()
    if ref is None:
        ref = reference(torch, a, b, bias, kernel.act)
    result = measure.compare(c, ref, TOL)
    result.update(seed=seed, reference_first=reference_first, inputs_changed=changed)
    if changed:
        result["ok"] = False
    return result


def run_shape(torch, shape, kernels, seeds, flusher, timing=True, rounds=common.ROUNDS,
              iters=common.ITERS_PER_ROUND, with_torch=True):
    """{shape, checks: {kernel: [2 checks]}, peer_checks, timing: {fn: ...}, slowdown_vs_plain: {kernel: x}}."""
    record = {"shape": shape.label, "dims": {"M": shape.m, "N": shape.n, "K": shape.k}, "flops": shape.flops,
              "checks": {}, "peer_checks": {}, "errors": {}}
    for kernel in kernels:
        try:
            record["checks"][kernel.name] = [check_kernel(torch, shape, kernel, seeds, False)]
        except Exception as error:  # noqa: BLE001 - e.g. a shape the kernel's requires refuses
            record["errors"][kernel.name] = "%s: %s" % (type(error).__name__, str(error).splitlines()[0][:200])
    if timing:
        import measure
        inputs, _ = make_inputs(torch, shape, seeds)
        a, b, bias = inputs["A"], inputs["B"], inputs["bias"]
        bias_bf16 = bias.to(torch.bfloat16)
        c = common.poisoned(torch, (shape.m, shape.n), torch.bfloat16)
        fns = {k.name: (lambda f: lambda: f(a, b, bias, c))(k.launch) for k in kernels
               if k.name in record["checks"]}
        if with_torch:
            for act in ACTS:
                for name, fn in torch_peers(torch, act, a, b, bias_bf16).items():
                    out = fn()
                    record["peer_checks"][name] = measure.compare(out, reference(torch, a, b, bias_bf16, act), TOL)
                    fns[name] = fn
                    del out
        record["timing"] = common.time_interleaved(torch, fns, flusher, rounds, iters)
        for t in record["timing"].values():
            common.add_rates(t, shape.flops, shape.nbytes)
        plain = record["timing"].get(PLAIN)
        record["slowdown_vs_plain"] = {k.name: record["timing"][k.name]["ms"] / plain["ms"]
                                       for k in kernels if k.act is not None and plain and k.name in record["timing"]}
        del inputs, a, b, bias, c
    for kernel in kernels:
        if kernel.name in record["checks"]:
            record["checks"][kernel.name].append(check_kernel(torch, shape, kernel, seeds, True))
    record["status"] = status_of(record)
    return record


def status_of(record):
    if any(t.get("below_floor") for t in record.get("timing", {}).values()):
        return "below-floor"
    if record["errors"]:
        return "error"
    if not all(c["ok"] for checks in record["checks"].values() for c in checks):
        return "wrong"
    if not all(c["ok"] for c in record["peer_checks"].values()):
        return "peer-wrong"
    return "ok"


# =========================================================================================== report
def acceptance(records, kernels):
    lines = []
    acts = [k for k in kernels if k.act is not None]
    for r in records:
        if not any(s.label == r["shape"] and s.accept for s in shapes()):
            continue
        if not acts:
            lines.append(("SKIP", "gemm_bias_act within 3%% of %s at %s" % (PLAIN, r["shape"]),
                          "no gemm_bias_act cubin in this run"))
            continue
        for k in acts:
            name = "%s within 3%% of %s at %s" % (k.name, PLAIN, r["shape"])
            x = (r.get("slowdown_vs_plain") or {}).get(k.name)
            if x is None or r.get("status") != "ok":
                lines.append(("FAIL", name, "status %s, %s" % (r.get("status"), "no timing" if x is None else "")))
            else:
                lines.append(("PASS" if x <= ACCEPT_SLOWDOWN else "FAIL", name, "time x%.4f of the plain GEMM" % x))
    return lines


def markdown(document):
    rows = []
    for r in document["cases"]:
        for name, t in sorted(r.get("timing", {}).items(), key=lambda kv: kv[1]["ms"]):
            checks = r["checks"].get(name) or ([r["peer_checks"][name]] if name in r["peer_checks"] else [])
            rows.append([r["shape"], name, r["status"],
                         common.fmt(max((c["rel_err"] for c in checks), default=None), "%.2e"),
                         common.fmt(t["ms"], "%.4f"), common.fmt(t["tflops"], "%.1f"),
                         common.fmt((r.get("slowdown_vs_plain") or {}).get(name), "%.4f"),
                         common.fmt(t["floor_ms"], "%.4f")])
        if not r.get("timing"):
            for name, checks in r.get("checks", {}).items():
                rows.append([r["shape"], name, r["status"], common.fmt(max(c["rel_err"] for c in checks), "%.2e"),
                             "-", "-", "-", "-"])
        for name, error in r.get("errors", {}).items():
            rows.append([r["shape"], name, "error", "-", "-", "-", "-", error[:100]])
        if r.get("error"):
            rows.append([r["shape"], "-", r["status"], "-", "-", "-", "-", r["error"][:100]])
    m = document["meta"]
    text = ["# gemm_bias_act vs the plain persistent GEMM and torch", "",
            "- command: `%s`" % m.get("command"), "- date: %s; device: %s; torch %s" % (
                m.get("date"), (m.get("device") or {}).get("name"), (m.get("device") or {}).get("torch")),
            "- timing: median of %s interleaved rounds x %s runs per function, L2 flushed before each run, CUDA "
            "events; persisting L2: %s; TFLOP/s = 2 M N K / time; bias f32 for CAKE, bf16 for torch" % (
                m.get("rounds"), m.get("iters"), (m.get("persisting_l2") or {}).get("status")),
            "- seeds: %s" % m.get("seeds"), "",
            common.table(["shape", "function", "shape status", "rel err", "ms", "TFLOP/s", "time / plain",
                          "floor ms"], rows), "", "## Acceptance", ""]
    text += ["- %s %s: %s" % line for line in document["acceptance"]]
    return "\n".join(text) + "\n"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"), help="folder for gemm_bias_act.{json,md}")
    p.add_argument("--cubins", default=os.path.join(BENCH_DIR, "out", "fragments"), help="fragment_samples_build.sh's folder")
    p.add_argument("--peers-only", action="store_true", help="leave out the gemm_bias_act cubins")
    p.add_argument("--dry-run", action="store_true", help="plan every launch with fake buffers; no GPU")
    p.add_argument("--shapes", help="comma-separated shape labels (default: all)")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--rounds", type=int, default=common.ROUNDS)
    p.add_argument("--iters", type=int, default=common.ITERS_PER_ROUND)
    p.add_argument("--seed", type=int, default=11100)
    p.add_argument("--budget", type=float, default=240.0)
    args = p.parse_args(argv)
    if not args.dry_run and not args.out:
        p.error("--out DIR is required (or $OUT), unless --dry-run")
    return args


def chosen_shapes(args):
    wanted = args.shapes.split(",") if args.shapes else None
    return [s for s in shapes() if not wanted or s.label in wanted]


def dry_run(args, cake, kernels):
    import run_bench
    from cases import Buf
    problems = 0
    for shape in chosen_shapes(args):
        specs = {"A": Buf((shape.m, shape.k), "bf16", "in"), "B": Buf((shape.n, shape.k), "bf16", "in"),
                 "bias": Buf((shape.n,), "f32", "in"), "C": Buf((shape.m, shape.n), "bf16", "out")}
        fake = run_bench.fake_buffers(cake, specs)
        for k in kernels:
            kernel = next(iter(cake.load(k.path).kernels.values()))
            try:
                plan = kernel.plan(*common.bind(k.manifest, fake, ALIASES), num_sms=132)
                print("OK    %-10s %-28s grid=%s block=%s cluster=%s smem=%d" % (
                    shape.label, k.name, plan.grid, plan.block, plan.cluster, plan.dynamic_smem_bytes))
            except Exception as error:  # noqa: BLE001
                problems += 1
                print("ERROR %-10s %-28s %s: %s" % (shape.label, k.name, type(error).__name__, error))
    print("dry run: %d shapes x %d kernels, %d problem(s)" % (len(chosen_shapes(args)), len(kernels), problems))
    return 1 if problems else 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    kernels = find_kernels(args.cubins, args.peers_only)
    cake = common.use_runtime(args.cubins) if kernels else None
    if args.dry_run:
        return dry_run(args, cake, kernels) if kernels else (print("dry run: no kernels under %s" % args.cubins) or 0)
    try:
        import torch
        torch.zeros(1, device=common.DEVICE)
    except Exception as error:  # noqa: BLE001
        print("gemm_bias_act_bench.py: no GPU: %s" % error, file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    for k in kernels:
        k.bound(cake)
    seeds = common.Seeds(args.seed)
    document = {"format": "cake-gemm-bias-act-bench v1", "meta": common.meta(torch, args, {
        "rounds": args.rounds, "iters": args.iters, "peers_only": args.peers_only,
        "kernels": [{"name": k.name, "path": k.path, "act": k.act, "ct_params": common.ct_params(k.manifest)}
                    for k in kernels], "build": common.read_variants(args.cubins)}), "cases": []}
    flusher = common.L2Flusher(torch)
    deadline = time.time() + args.budget
    for shape in chosen_shapes(args):
        if time.time() > deadline:
            document["cases"].append({"shape": shape.label, "status": "skipped", "error": "time budget used up",
                                      "checks": {}, "errors": {}})
            continue
        try:
            record = run_shape(torch, shape, kernels, seeds, flusher, not args.no_timing, args.rounds, args.iters)
        except Exception as error:  # noqa: BLE001
            record = {"shape": shape.label, "status": "error", "error": "%s: %s" % (type(error).__name__, error),
                      "traceback": traceback.format_exc(limit=5), "checks": {}, "errors": {}}
        document["cases"].append(record)
        print("%-10s %-10s %s" % (shape.label, record["status"], ", ".join(
            "%s %.1f" % (n, t["tflops"]) for n, t in record.get("timing", {}).items())), flush=True)
        torch.cuda.empty_cache()
    document["meta"]["seeds"] = seeds.used
    document["acceptance"] = acceptance(document["cases"], kernels)
    text = markdown(document)
    common.write(args.out, "gemm_bias_act", document, text)
    print(text)
    bad = [r for r in document["cases"] if r["status"] not in ("ok", "skipped")]
    return 1 if bad or any(s == "FAIL" for s, _, _ in document["acceptance"]) else 0


if __name__ == "__main__":
    sys.exit(main())
