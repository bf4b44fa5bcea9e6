"""GPU measurement for the benchmark (needs torch with CUDA): buffer sets, correctness checks, timing and
the machine description.

Timing: each run is bracketed by its own pair of CUDA events and the median is reported.  Before the timed
loop the stream is kept busy with torch.cuda._sleep for about as long as the host needs to enqueue the loop,
so the events measure GPU time and not Python / ctypes launch overhead (which is reported separately as
host_us, the host time of one call).  When the working set of one run fits in L2, the runs rotate over
several independently filled buffer sets, so no run finds its inputs in L2 from the previous one."""

import json
import math
import statistics
import subprocess
import time

import torch

import cases as case_defs

DEVICE = "cuda"                # the bench's self-test (bench/test_bench.py) runs the harness on "cpu"
MIN_ITERS = 50
MAX_ITERS = 400
TARGET_SECONDS = 0.25          # measured GPU time per timed loop (more iterations for short kernels)


def l2_bytes():
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return int(getattr(props, "L2_cache_size", 0) or case_defs.L2_BYTES_DEFAULT)


class BufferSet:
    """The tensors of one run of a case (names as in Case.buffers)."""

    def __init__(self, specs):
        self.specs = specs
        self.tensors = {name: torch.empty(spec.shape, dtype=case_defs.torch_dtype(torch, spec.dtype), device=DEVICE)
                        for name, spec in specs.items()}

    def refill(self, case, gen):
        """Fresh random inputs; NaN in every output and scratch buffer."""
        for name, spec in self.specs.items():
            if spec.role == "in":
                case.fill(torch, name, self.tensors[name], gen)
            else:
                self.tensors[name].fill_(float("nan"))

    def poison_outputs(self):
        for name, spec in self.specs.items():
            if spec.role != "in":
                self.tensors[name].fill_(float("nan"))


def generator(seed):
    gen = torch.Generator(device=DEVICE)
    gen.manual_seed(seed)
    return gen


def set_count(specs):
    return case_defs.rotation_sets(specs, l2_bytes())


OUTLIER_FACTOR = 10            # one element may be off by at most 10 x tolerance x rms(ref) (+ output rounding)
ROUNDING = {torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11, torch.float32: 2.0**-24}


def compare(out, ref, tolerance):
    """The relative error ||out - ref|| / ||ref|| (float64) must be <= tolerance, no NaN may be left (outputs
    start NaN-poisoned), and no single element may be an outlier: |out - ref| <= OUTLIER_FACTOR * tolerance *
    rms(ref) + 2 ulp(out dtype) * |ref|, which catches one wrong element that the norm would average away."""
    o = out.detach().double().reshape(-1)
    r = ref.detach().double().reshape(-1).to(o.device)
    nan_count = int(torch.isnan(o).sum().item())
    diff = (torch.nan_to_num(o, nan=0.0) - r).abs()
    ref_norm = float(r.norm().item())
    rel = float(diff.norm().item()) / ref_norm if ref_norm > 0 else float(diff.norm().item())
    max_abs = float(diff.max().item()) if diff.numel() else 0.0
    rms = ref_norm / math.sqrt(max(r.numel(), 1))
    bound = OUTLIER_FACTOR * tolerance * rms + 2 * ROUNDING.get(out.dtype, 0.0) * r.abs()
    outliers = int((diff > bound).sum().item())
    del diff, bound
    ok = nan_count == 0 and math.isfinite(rel) and rel <= tolerance and outliers == 0
    return {"rel_err": rel, "max_abs_err": max_abs, "max_err_over_rms": max_abs / rms if rms > 0 else max_abs,
            "outliers": outliers, "nan_count": nan_count, "tolerance": tolerance, "ok": ok}


def time_runs(fns, iters=None):
    """Median etc. of the GPU time of fns[i % len(fns)]() over >= MIN_ITERS runs, in ms."""
    # warm-up, and an estimate of the GPU time and the host time of one call
    for fn in fns[:3] if len(fns) >= 3 else fns * 3:
        fn()
    torch.cuda.synchronize()
    count = max(len(fns), 5)
    t0 = time.perf_counter()
    for i in range(count):
        fns[i % len(fns)]()
    host_s = (time.perf_counter() - t0) / count
    torch.cuda.synchronize()
    gpu_s = (time.perf_counter() - t0) / count
    if iters is None:
        iters = int(min(MAX_ITERS, max(MIN_ITERS, TARGET_SECONDS / max(gpu_s, 1e-6))))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is not None:   # hold the stream while the host enqueues: events then time the GPU only
        ahead_s = min(0.5, 1.5 * iters * (host_s + 5e-6))
        sleep(int(ahead_s * 2.0e9))
    for i in range(iters):
        starts[i].record()
        fns[i % len(fns)]()
        ends[i].record()
    torch.cuda.synchronize()
    ms = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return {"ms": statistics.median(ms), "ms_min": ms[0], "ms_p10": ms[len(ms) // 10],
            "ms_p90": ms[(len(ms) * 9) // 10], "iters": iters, "host_us": host_s * 1e6, "sets": len(fns)}


def context_healthy():
    """False when the CUDA context is broken (a sticky error such as an illegal address)."""
    try:
        torch.cuda.synchronize()
        x = torch.ones(16, device=DEVICE)
        return float((x + x).sum().item()) == 32.0
    except Exception:  # noqa: BLE001 - any failure means the context is unusable
        return False


def nvidia_smi():
    fields = ["name", "driver_version", "pstate", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem",
              "clocks.applications.graphics", "power.draw", "power.limit", "temperature.gpu", "memory.total",
              "persistence_mode", "compute_mode"]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as error:
        return {"error": "nvidia-smi not available: %s" % error}
    if out.returncode != 0:
        return {"error": "nvidia-smi failed: %s" % (out.stderr or out.stdout).strip()[:300]}
    gpus = []
    for line in out.stdout.strip().splitlines():
        values = [v.strip() for v in line.split(",")]
        gpus.append(dict(zip(fields, values)))
    return {"gpus": gpus}


def device_info():
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    info = {
        "name": torch.cuda.get_device_name(),
        "capability": "%d.%d" % (props.major, props.minor),
        "sms": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "l2_bytes": l2_bytes(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
    }
    try:
        import triton  # noqa: F401 - version only
        info["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        info["triton"] = None
    info["nvidia_smi"] = nvidia_smi()
    return info


def json_default(value):
    return str(value)


def dumps(obj):
    return json.dumps(obj, default=json_default)
