"""Shared measurement protocol of the fragment-epilogue sample benches (bench/attention_bench.py,
bench/gemm_bias_act_bench.py, bench/kmeans_assign_bench.py), after /work/shared/reference/measurement.md:

  * fresh inputs from a recorded seed for every check (Seeds), never zeros;
  * outputs freshly allocated and poisoned (NaN for floats, INT_SENTINEL for integers) before each run;
  * inputs compared with copies taken before the candidate ran (InputGuard); the check runs twice, candidate
    before the reference and reference before the candidate, on different seeds;
  * timing (time_interleaved): every function of a case (the CAKE kernel and its peers) is timed in the same
    process, interleaved round by round in rotating order; before each timed run L2 is flushed by writing a
    buffer of twice the L2 size, the persisting-L2 limit is set to zero (persisting_l2_off); CUDA events on
    the current stream around the run only; warm-up excluded; median of every sample, all samples recorded;
    host time per call measured separately;
  * physical floor (floor_ms): work / the H200's tensor peak (machines/h200.json: tensor flops per clock per
    SM x SMs x max clock) and bytes / HBM bandwidth; a median below the floor is a failed measurement.

Everything device-specific goes through DEVICE (the CPU self-test, bench/test_bench.py, sets "cpu" and
replaces torch.cuda's events by host timers)."""

import ctypes
import json
import math
import os
import statistics
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

DEVICE = "cuda"
INT_SENTINEL = -0x7ffffff0          # poisoned i32 outputs: no valid label or index has this value
L2_BYTES_DEFAULT = 60 << 20
ROUNDS = 3                          # interleaved timing rounds per case
ITERS_PER_ROUND = 20                # timed runs of each function per round (>= 60 samples per function)


def _h200():
    try:
        with open(os.path.join(REPO, "machines", "h200.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


_MACHINE = _h200()
PEAK_TENSOR_FLOPS = (_MACHINE.get("tensor_flops_per_clk_per_sm", 4096) * _MACHINE.get("sms", 132) *
                     _MACHINE.get("clock_ghz", 1.98) * 1e9)          # dense bf16 wgmma peak, ~1.07e15
PEAK_HBM_BYTES = _MACHINE.get("hbm_bytes_per_s", 4.8e12)


# =========================================================================================== inputs / outputs
class Seeds:
    """Hands out seeds base, base+1, ... and remembers them (the report records every seed used)."""

    def __init__(self, base):
        self.next, self.used = base, []

    def generator(self, torch):
        seed = self.next
        self.next += 1
        self.used.append(seed)
        gen = torch.Generator(device=DEVICE)
        gen.manual_seed(seed)
        return gen, seed


def randn(torch, shape, dtype, gen, scale=1.0):
    """Standard normal (times scale) drawn in float32 on DEVICE, rounded to dtype."""
    return (torch.randn(shape, generator=gen, device=DEVICE, dtype=torch.float32) * scale).to(dtype)


def poisoned(torch, shape, dtype):
    """A fresh output tensor: NaN for floating dtypes, INT_SENTINEL for integer ones."""
    if dtype.is_floating_point:
        return torch.full(shape, float("nan"), device=DEVICE, dtype=dtype)
    return torch.full(shape, INT_SENTINEL, device=DEVICE, dtype=dtype)


class InputGuard:
    """Copies of the inputs taken before the candidate runs; changed() names those that differ now."""

    def __init__(self, inputs):
        self.inputs = inputs
        self.copies = {name: t.clone() for name, t in inputs.items()}

    def changed(self):
        return [name for name, t in self.inputs.items() if not bit_equal(t, self.copies[name])]


def bit_equal(a, b):
    """Exact equality, NaN included (bitwise for floats)."""
    import torch
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        width = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return bool(torch.equal(a.view(width), b.view(width)))
    return bool(torch.equal(a, b))


# =========================================================================================== timing
def persisting_l2_off():
    """Sets the current context's persisting-L2 limit to 0 through the driver (cuCtxSetLimit,
    CU_LIMIT_PERSISTING_L2_CACHE_SIZE); returns what happened, for the record."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        return {"status": "no libcuda: %s" % error}
    limit = 0x06                       # CU_LIMIT_PERSISTING_L2_CACHE_SIZE
    rc = lib.cuCtxSetLimit(ctypes.c_int(limit), ctypes.c_size_t(0))
    value = ctypes.c_size_t(12345)
    rc_get = lib.cuCtxGetLimit(ctypes.byref(value), ctypes.c_int(limit))
    return {"status": "ok" if rc == 0 and rc_get == 0 and value.value == 0 else "failed",
            "set_rc": rc, "get_rc": rc_get, "limit_bytes": value.value}


class L2Flusher:
    """Writes a buffer of twice the L2 size: whatever the previous run left in L2 is evicted."""

    def __init__(self, torch, l2_bytes=None):
        if l2_bytes is None:
            l2_bytes = L2_BYTES_DEFAULT
            if DEVICE == "cuda":
                props = torch.cuda.get_device_properties(torch.cuda.current_device())
                l2_bytes = int(getattr(props, "L2_cache_size", 0) or L2_BYTES_DEFAULT)
        self.l2_bytes = l2_bytes
        self.buffer = torch.empty(2 * l2_bytes // 4, dtype=torch.int32, device=DEVICE)
        self.value = 0

    def __call__(self):
        self.value = (self.value + 1) & 0xffff
        self.buffer.fill_(self.value)


def time_interleaved(torch, fns, flusher, rounds=ROUNDS, iters=ITERS_PER_ROUND):
    """{name: timing} for fns ({name: zero-argument callable}), timed in the same process: `rounds` rounds,
    each timing every function `iters` times in turn (the order rotates from round to round), each timed run
    preceded by an L2 flush and bracketed by its own CUDA events.  A warm-up of every function comes first
    (not timed).  Timing: median / min / p10 / p90 in ms of all samples, the samples themselves, and the host
    time of one call (host_us, enqueueing only, measured apart from the GPU time)."""
    names = list(fns)
    for name in names:                             # warm-up; also the host time of one call
        fns[name]()
    torch.cuda.synchronize()
    host_us = {}
    for name in names:
        t0 = time.perf_counter()
        for _ in range(3):
            fns[name]()
        host_us[name] = (time.perf_counter() - t0) / 3 * 1e6
        torch.cuda.synchronize()
    samples = {name: [] for name in names}
    sleep = getattr(torch.cuda, "_sleep", None)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        events = []
        torch.cuda.synchronize()                   # nothing else pending on the device
        if sleep is not None:                      # hold the stream while the host enqueues the round
            ahead = sum(host_us[n] for n in order) * iters * 1.5e-6 + iters * len(order) * 20e-6
            sleep(int(min(0.5, ahead) * 2.0e9))
        for name in order:
            for _ in range(iters):
                flusher()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fns[name]()
                end.record()
                events.append((name, start, end))
        torch.cuda.synchronize()
        for name, start, end in events:
            samples[name].append(start.elapsed_time(end))
    out = {}
    for name in names:
        ms = sorted(samples[name])
        out[name] = {"ms": statistics.median(ms), "ms_min": ms[0], "ms_p10": ms[len(ms) // 10],
                     "ms_p90": ms[(len(ms) * 9) // 10], "iters": len(ms), "rounds": rounds,
                     "host_us": host_us[name], "samples_ms": [round(v, 6) for v in samples[name]],
                     "l2_flushed": True}
    return out


def floor_ms(flops=0, nbytes=0):
    """The physical floor of one run in ms: max(flops / tensor peak, bytes / HBM bandwidth)."""
    return max(flops / PEAK_TENSOR_FLOPS, nbytes / PEAK_HBM_BYTES) * 1e3


def add_rates(timing, flops, nbytes):
    """Adds tflops and the floor verdict to one timing record; returns False when it is below the floor."""
    timing["tflops"] = flops / (timing["ms"] * 1e-3) / 1e12 if timing["ms"] > 0 else None
    timing["floor_ms"] = floor_ms(flops, nbytes)
    timing["below_floor"] = timing["ms"] < timing["floor_ms"]
    return not timing["below_floor"]


# =========================================================================================== kernels
def find_cubins(folder, prefix):
    """[(name, cubin path, manifest)] of folder/<prefix>*.cubin with a manifest, sorted by name."""
    out = []
    if not os.path.isdir(folder):
        return out
    for entry in sorted(os.listdir(folder)):
        if entry.startswith(prefix) and entry.endswith(".cubin"):
            path = os.path.join(folder, entry)
            try:
                with open(path + ".json") as f:
                    manifest = json.load(f)
            except (OSError, ValueError):
                continue
            out.append((entry[:-len(".cubin")], path, manifest))
    return out


def ct_params(manifest):
    kernels = manifest.get("kernels") or [{}]
    return dict(kernels[0].get("ct_params", {}))


def matching_kernels(kernels, required, defaults=None):
    """Every (name, path, manifest) of `kernels` whose compile-time parameters equal `required` (a parameter the
    kernel does not declare takes its value from `defaults`, and fits when there is none there): one record
    per schedule variant of a case (-D PINGPONG=1, -D SPLIT=1), each timed against the peers of its run."""
    out = []
    for name, path, manifest in kernels:
        ct = ct_params(manifest)
        if all(int(ct.get(k, (defaults or {}).get(k, v))) == int(v) for k, v in required.items()):
            out.append((name, path, manifest))
    return out


def param_names(manifest):
    kernels = manifest.get("kernels") or [{}]
    return [p["name"] for p in kernels[0].get("params", [])]


def bind(manifest, buffers, aliases):
    """The kernel's arguments in declaration order: each parameter name of the manifest looked up in
    `aliases` (parameter name -> buffer name; a name not there is its own buffer name)."""
    args = []
    for name in param_names(manifest):
        key = aliases.get(name, name)
        if key not in buffers:
            raise KeyError("kernel parameter %s: the bench has no buffer '%s' (buffers: %s)"
                           % (name, key, ", ".join(buffers)))
        args.append(buffers[key])
    return args


def use_runtime(cubin_dir):
    """The cake package, with libcake_runtime.so of cubin_dir or its parent (bench/out) or $CAKE_RUNTIME_LIB
    loadable (run_bench builds one from runtime/src when the carried one does not load)."""
    import run_bench
    folder = cubin_dir if os.path.isfile(os.path.join(cubin_dir, "libcake_runtime.so")) else os.path.dirname(cubin_dir)
    cake = run_bench.use_runtime_library(folder)
    run_bench.ensure_runtime_loads(cake)
    return cake


def read_variants(cubin_dir):
    """bench/out/fragments/variants.json (fragment_samples_build.sh: every sample variant's compile result), or None."""
    try:
        with open(os.path.join(cubin_dir, "variants.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


# =========================================================================================== records
def meta(torch, args, extra=None):
    """The run's record: command, date, device, versions, peaks used for the floor."""
    import datetime
    record = {"command": " ".join([os.path.basename(sys.executable)] + sys.argv),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "python": sys.version.split()[0], "peak_tensor_flops": PEAK_TENSOR_FLOPS,
              "peak_hbm_bytes_per_s": PEAK_HBM_BYTES, "commit": os.environ.get("CAKE_COMMIT")}
    if DEVICE == "cuda":
        import measure
        record["device"] = measure.device_info()
        record["persisting_l2"] = persisting_l2_off()
    if extra:
        record.update(extra)
    return record


def write(out_dir, stem, document, markdown):
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, stem + ".json"), "w") as f:
        json.dump(document, f, indent=1, default=str)
    with open(os.path.join(out_dir, stem + ".md"), "w") as f:
        f.write(markdown)


def fmt(value, spec="%.3g"):
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else spec % value


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def run_cases(torch, document, cases, run_one, budget_s):
    """Appends run_one(case) for every case to document["cases"] (a case past the time budget is "skipped",
    an exception an "error" record with its traceback), printing one line per case with its timings."""
    deadline = time.time() + budget_s
    for case in cases:
        if time.time() > deadline:
            document["cases"].append({"shape": case.label, "status": "skipped", "error": "time budget used up"})
            continue
        try:
            record = run_one(case)
        except Exception as error:  # noqa: BLE001
            record = {"shape": case.label, "status": "error", "error": "%s: %s" % (type(error).__name__, error),
                      "traceback": traceback.format_exc(limit=6)}
        document["cases"].append(record)
        print("%-28s %-10s %s" % (case.label, record["status"], ", ".join(
            "%s %.4f ms" % (n, t["ms"]) for n, t in record.get("timing", {}).items())), flush=True)
        torch.cuda.empty_cache()
