"""The GPU backend of the measurement service: torch tensors on the current CUDA device, kernels launched
through the cakeir runtime, times from CUDA events.

Importing this module does not import torch; making a GpuBackend does (and needs a CUDA device).
  - inputs: torch.randn (float dtypes; zeros are replaced by 1) or randint, from a torch.Generator seeded per
    trial; outputs: torch.full with NaN, or INT_SENTINEL for integer dtypes; stale outputs: the previous
    reference cast to the output dtype.  Bitwise equality compares the raw bits (NaN payloads included).
  - kernels: cakeir.load(<cubin_dir>/<candidate>.cubin) when a folder of prebuilt cubins is given (the device
    machine needs no cakec), else cakeir.compile(source, arch, defines).  A launch on TIMED_STREAM goes to
    torch's current stream; one on any other stream to a torch.cuda.Stream of that name, which first waits
    for the current stream (so it sees the poisoned outputs) but is never waited for.
  - run observation: CUDA events bracket the timed launches on the current stream; right after the end event
    the outputs are copied on the current stream (the stream-ordered snapshot); then the host waits for the
    current stream only (an event after the copy), and times a device-wide synchronization: what it waits
    for is work outside the timed stream (pending_unit "ms", limit PENDING_LIMIT_MS).
  - timing (time): the persisting-L2 limit set to 0 (cuCtxSetLimit), a warm-up of every function, then
    ROUNDS rounds, each timing every function ITERS times in rotating order; before each timed run the
    outputs are poisoned and L2 is flushed (a write of twice its size), then start event, the function, end
    event, all on the current stream with the stream held by torch.cuda._sleep for 1.5 x the host time of the
    round's iterations (measured in the warm-up), so host enqueue time is not in the events; host_us, the
    host time of one call, is measured on its own.  Median, min, p10, p90 and every
    sample.
  - comparison: cakeir.measure.compare's rule computed with torch in float64 on the device (compare_torch;
    bit_equal_torch for the inputs: both usable on their own, as bench/library_bench.py does)."""

from __future__ import annotations

import ctypes
import math
import statistics
import time
from typing import Any, Callable, Dict, List, Mapping, Optional

from .backend import Backend, RunObservation, Timing
from .compare import OUTLIER_FACTOR, ULP, Comparison
from .host_tensor import INT_SENTINEL
from .problem import TIMED_STREAM, Candidate, Problem, Shape, is_float

PENDING_LIMIT_MS = 0.05          # a device-wide sync with nothing pending takes ~5-20 us
ROUNDS = 3
ITERS = 20
TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8",
                "u8": "uint8", "i16": "int16", "i32": "int32", "i64": "int64", "pred": "bool"}


def persisting_l2_off() -> Dict[str, Any]:
    """Sets the current context's persisting-L2 limit to 0 (cuCtxSetLimit, CU_LIMIT_PERSISTING_L2_CACHE_SIZE)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        return {"status": "no libcuda: %s" % error}
    limit = 0x06
    rc = lib.cuCtxSetLimit(ctypes.c_int(limit), ctypes.c_size_t(0))
    value = ctypes.c_size_t(12345)
    rc_get = lib.cuCtxGetLimit(ctypes.byref(value), ctypes.c_int(limit))
    return {"status": "ok" if rc == 0 and rc_get == 0 and value.value == 0 else "failed", "set_rc": rc,
            "get_rc": rc_get, "limit_bytes": value.value}


def gpu_clocks() -> Dict[str, Any]:
    """nvidia-smi's clocks, power and temperature of the GPUs, for the record (or why they are missing)."""
    import subprocess
    fields = ["name", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem", "power.draw", "power.limit",
              "temperature.gpu", "driver_version"]
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(fields), "--format=csv,noheader"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return {"error": str(error)}
    lines = out.stdout.decode("utf-8", "replace").strip().splitlines()
    return {"gpus": [dict(zip(fields, (v.strip() for v in line.split(",")))) for line in lines]}


class GpuBackend(Backend):
    name = "gpu"
    can_time = True

    def __init__(self, cubin_dir: Optional[str] = None, arch: Optional[str] = None, rounds: int = ROUNDS,
                 iters: int = ITERS):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("the GPU backend needs a CUDA device (torch.cuda.is_available() is False)")
        self.torch = torch
        self.cubin_dir, self.arch = cubin_dir, arch
        self.rounds, self.iters = rounds, iters
        self.streams: Dict[str, Any] = {}
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        self.l2_bytes = int(getattr(props, "L2_cache_size", 0) or (60 << 20))
        self.flush_buffer = torch.empty(2 * self.l2_bytes // 4, dtype=torch.int32, device="cuda")
        self.flush_value = 0
        self.persisting_l2 = persisting_l2_off()

    def describe(self) -> Dict[str, Any]:
        torch = self.torch
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        return {"backend": self.name, "device": torch.cuda.get_device_name(), "sms": props.multi_processor_count,
                "l2_bytes": self.l2_bytes, "torch": torch.__version__, "cuda": torch.version.cuda,
                "persisting_l2": self.persisting_l2, "pending_limit_ms": PENDING_LIMIT_MS, "clocks": gpu_clocks()}

    def _dtype(self, name: str) -> Any:
        return getattr(self.torch, TORCH_DTYPES[name])

    # ---------------------------------------------------------------- tensors
    def random_inputs(self, problem: Problem, shape: Shape, seed: int) -> Dict[str, Any]:
        torch = self.torch
        gen = torch.Generator(device="cuda")
        gen.manual_seed(seed)
        out = {}
        for t in problem.inputs:
            if is_float(t.dtype):
                x = torch.randn(t.shape(shape), generator=gen, device="cuda", dtype=torch.float32).to(self._dtype(t.dtype))
                x[x == 0] = 1
            else:
                x = torch.randint(1, 101, t.shape(shape), generator=gen, device="cuda", dtype=self._dtype(t.dtype))
            out[t.name] = x
        return out

    def poisoned_outputs(self, problem: Problem, shape: Shape) -> Dict[str, Any]:
        torch = self.torch
        return {t.name: torch.full(t.shape(shape), math.nan if is_float(t.dtype) else INT_SENTINEL, device="cuda",
                                   dtype=self._dtype(t.dtype)) for t in problem.outputs}

    def stale_outputs(self, problem: Problem, shape: Shape, values: Mapping[str, Any]) -> Dict[str, Any]:
        return {t.name: values[t.name].to(self._dtype(t.dtype)).clone() for t in problem.outputs}

    def poison(self, outputs: Mapping[str, Any]) -> None:
        for tensor in outputs.values():
            tensor.fill_(math.nan if tensor.dtype.is_floating_point else INT_SENTINEL)

    def clone(self, tensor: Any) -> Any:
        return tensor.clone()

    def bit_equal(self, a: Any, b: Any) -> bool:
        return bit_equal_torch(a, b)

    def reference(self, problem: Problem, inputs: Mapping[str, Any], shape: Shape) -> Dict[str, Any]:
        if problem.reference_torch is None:
            raise ValueError("problem %s has no reference_torch: the GPU backend cannot check it" % problem.name)
        return problem.reference_torch(self.torch, inputs, shape)

    def compare(self, out: Any, ref: Any, tolerance: float, before: Optional[Any] = None) -> Comparison:
        return compare_torch(out, ref, tolerance, before)

    # ---------------------------------------------------------------- runs
    def prepare(self, problem: Problem, candidate: Candidate) -> Any:
        import os
        import cakeir
        if self.cubin_dir is not None:
            return cakeir.load(os.path.join(self.cubin_dir, candidate.name + ".cubin"))
        return cakeir.compile(candidate.source, arch=self.arch, defines=candidate.resolved_defines(problem.tuning_shape))

    def _stream(self, name: str) -> Any:
        if name not in self.streams:
            self.streams[name] = self.torch.cuda.Stream()
        return self.streams[name]

    def _issue(self, module: Any, problem: Problem, candidate: Candidate, tensors: Dict[str, Any]) -> None:
        """Enqueues the plan's launches in order: timed ones on the current stream, the others each on its own
        stream after that stream waited for the current one."""
        torch = self.torch
        for launch in candidate.launches:
            kernel = module[launch.kernel]
            by_tensor = {tensor: param for param, tensor in launch.bind.items()}
            args = {by_tensor.get(t.name, t.name): tensors[t.name] for t in problem.tensors}
            args.update(launch.scalars)
            positional = [args[p] for p in kernel.param_names]      # positional: the prepared launch path
            if launch.stream == TIMED_STREAM:
                kernel(*positional)
            else:
                side = self._stream(launch.stream)
                side.wait_stream(torch.cuda.current_stream())
                kernel(*positional, stream=side)

    def run(self, prepared: Any, problem: Problem, candidate: Candidate, tensors: Dict[str, Any],
            shape: Shape) -> RunObservation:
        torch = self.torch
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        self._issue(prepared, problem, candidate, tensors)
        end.record()
        snapshot = {t.name: tensors[t.name].clone() for t in problem.outputs}
        copied = torch.cuda.Event()
        copied.record()
        copied.synchronize()                 # the timed stream is idle now: its work and the snapshot are done
        t0 = time.perf_counter()
        torch.cuda.synchronize()
        pending_ms = (time.perf_counter() - t0) * 1e3
        return RunObservation(snapshot=snapshot, pending=pending_ms, pending_unit="ms", pending_limit=PENDING_LIMIT_MS)

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def timed_run(self, prepared: Any, problem: Problem, candidate: Candidate, tensors: Dict[str, Any],
                  shape: Shape) -> Callable[[], None]:
        def one_run() -> None:
            self._issue(prepared, problem, candidate, tensors)
        return one_run

    def peer_runs(self, problem: Problem, tensors: Dict[str, Any], shape: Shape) -> Dict[str, Callable[[], None]]:
        return {name: build(self.torch, tensors, shape) for name, build in problem.peers.items()}

    def flush_l2(self) -> None:
        self.flush_value = (self.flush_value + 1) & 0xFFFF
        self.flush_buffer.fill_(self.flush_value)

    def time(self, functions: Mapping[str, Callable[[], None]], before_each: Callable[[], None]) -> Dict[str, Timing]:
        torch = self.torch
        names = list(functions)
        host_us: Dict[str, float] = {}
        iteration_us: Dict[str, float] = {}
        for name in names:           # warm-up; host time of one call, and of one whole timed iteration
            functions[name]()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(3):
                functions[name]()
            host_us[name] = (time.perf_counter() - t0) / 3 * 1e6
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(3):
                before_each()
                self.flush_l2()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                functions[name]()
                end.record()
            iteration_us[name] = (time.perf_counter() - t0) / 3 * 1e6
            torch.cuda.synchronize()
        samples: Dict[str, List[float]] = {name: [] for name in names}
        sleep = getattr(torch.cuda, "_sleep", None)
        for r in range(self.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            events = []
            torch.cuda.synchronize()
            if sleep is not None:
                ahead = sum(iteration_us[n] for n in order) * self.iters * 1.5e-6 + self.iters * len(order) * 10e-6
                sleep(int(min(0.5, ahead) * 2.0e9))
            for name in order:
                for _ in range(self.iters):
                    before_each()
                    self.flush_l2()
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    start.record()
                    functions[name]()
                    end.record()
                    events.append((name, start, end))
            torch.cuda.synchronize()
            for name, start, end in events:
                samples[name].append(start.elapsed_time(end))
        out = {}
        for name in names:
            ms = sorted(samples[name])
            out[name] = Timing(ms=statistics.median(ms), ms_min=ms[0], ms_p10=ms[len(ms) // 10],
                               ms_p90=ms[(len(ms) * 9) // 10], samples_ms=samples[name], host_us=host_us[name])
        return out


def _cake_dtype(torch_dtype: Any) -> str:
    name = str(torch_dtype).replace("torch.", "")
    for cake, t in TORCH_DTYPES.items():
        if t == name:
            return cake
    return name


def bit_equal_torch(a: Any, b: Any) -> bool:
    """Exact equality of two torch tensors, bit for bit (NaN payloads included)."""
    import torch
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        width = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return bool(torch.equal(a.view(width), b.view(width)))
    return bool(torch.equal(a, b))


def compare_torch(out: Any, ref: Any, tolerance: float, before: Optional[Any] = None) -> Comparison:
    """cakeir.measure.compare's rule on torch tensors (float64 on their device)."""
    import torch
    o = out.detach().double().reshape(-1)
    r = ref.detach().double().reshape(-1).to(o.device)
    poison = torch.isnan(o) if out.dtype.is_floating_point else (out.reshape(-1) == INT_SENTINEL)
    survivors_mask = poison & ~torch.isnan(r)
    written = ~survivors_mask
    d = (o - r).abs()
    d = torch.where(written & ~torch.isnan(d), d, torch.zeros_like(d))
    ref_norm = float(r.norm().item())
    rms = ref_norm / math.sqrt(max(r.numel(), 1))
    bound = OUTLIER_FACTOR * tolerance * rms + 2.0 * ULP.get(_cake_dtype(out.dtype), 0.0) * r.abs()
    bad = written & ((d > bound) | (torch.isnan(o) & ~torch.isnan(r)))
    stale = 0
    if before is not None:
        stale = int((bad & (o == before.detach().double().reshape(-1).to(o.device))).sum().item())
    diff = float(d.norm().item())
    return Comparison(total=r.numel(), survivors=int(survivors_mask.sum().item()), wrong=int(bad.sum().item()),
                      stale=stale, rel_err=diff / ref_norm if ref_norm > 0 else diff,
                      max_abs_err=float(d.max().item()) if d.numel() else 0.0, tolerance=tolerance)
