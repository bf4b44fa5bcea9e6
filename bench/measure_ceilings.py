#!/usr/bin/env python3
"""Measure the machine ceilings the cost model uses (machines/*.json, docs/cost-model.md) on the GPU.

Usage (on the device machine):
  python3 bench/measure_ceilings.py [--out DIR] [--machine machines/h200.json]
      writes DIR/ceilings.json (every measurement with its method) and, with --machine, DIR/<name>.json: the
      description with the measured fields replaced and their "sources" saying "measured by
      bench/measure_ceilings.py on <device>, <date>".
  python3 bench/measure_ceilings.py --dry-run      prints the CUDA sources and the plan; needs no GPU
  python3 bench/measure_ceilings.py --compile-only compiles the kernels with nvcc (no GPU), to check them

What is measured (median of several CUDA-event timed runs, clocks as they are):
  hbm_bytes_per_s         device-to-device copy of 1 GiB (torch copy_), bytes read + written per second
  tensor bf16             torch.matmul bf16 8192^3 (cuBLAS), FLOP/s -> tensor efficiency vs the datasheet peak
  shared_bytes_per_clk    a kernel where every thread reads 16-byte vectors from shared memory in a loop,
                          bytes / (SM clock x SMs); conflict-free addresses
  l2_bytes_per_s          a grid-stride kernel re-reading a 16 MB buffer (fits in L2) with 16-byte loads
  dram_latency_ns         one thread chasing pointers through 1 GiB with a random 4 KB+ stride (misses L2)
  l2_latency_ns           the same through a 4 MB buffer (hits L2 after a warm-up pass)
  launch_overhead_us      an empty kernel, CUDA-event time per launch
  fp32 FMA rate           a kernel of independent FFMA chains, lane-FMAs per clock per SM
Kernels are compiled with cupy.RawModule (cupy is installed on the device machines); without cupy only the
torch measurements (copy, matmul) are taken.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile

CUDA_SOURCE = r"""
extern "C" __global__ void empty_kernel() {}

// Every thread reads ITERS 16-byte vectors from a 32 KB shared buffer; lane-contiguous, conflict-free.
extern "C" __global__ void shared_read(float4 *sink, int iters) {
  __shared__ float4 buf[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = make_float4(i, i, i, i);
  __syncthreads();
  float4 acc = make_float4(0, 0, 0, 0);
  int idx = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    float4 v = buf[(idx + it * 32) & 2047];
    acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
  }
  if (acc.x == -1.0f) sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;   // never true; keeps the loads
}

// Grid-stride 16-byte reads of `n` float4 elements, `reps` times (the buffer stays in L2 when small).
extern "C" __global__ void stream_read(const float4 *__restrict__ src, float4 *sink, long n, int reps) {
  float4 acc = make_float4(0, 0, 0, 0);
  long stride = (long)gridDim.x * blockDim.x;
  for (int r = 0; r < reps; ++r)
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += stride) {
      float4 v = __ldcg(src + i);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
  if (acc.x == -1.0f) sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// One thread follows `steps` pointers; next[i] holds the index of the next element.
extern "C" __global__ void pointer_chase(const long *__restrict__ next, long *out, long start, int steps) {
  long p = start;
  for (int i = 0; i < steps; ++i) p = next[p];
  out[0] = p;
}

// Independent FFMA chains: 8 per thread, `iters` rounds; 2 FLOPs each.
extern "C" __global__ void ffma_chains(float *out, int iters) {
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int i = 0; i < iters; ++i) {
    a0 = fmaf(a0, 0.999f, 0.001f); a1 = fmaf(a1, 0.999f, 0.001f); a2 = fmaf(a2, 0.999f, 0.001f);
    a3 = fmaf(a3, 0.999f, 0.001f); a4 = fmaf(a4, 0.999f, 0.001f); a5 = fmaf(a5, 0.999f, 0.001f);
    a6 = fmaf(a6, 0.999f, 0.001f); a7 = fmaf(a7, 0.999f, 0.001f);
  }
  float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (s == -1.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
"""

KERNELS = ["empty_kernel", "shared_read", "stream_read", "pointer_chase", "ffma_chains"]


def compile_only():
    """Compile CUDA_SOURCE with nvcc for sm_90 (no GPU needed): catches syntax errors before device time."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "ceilings.cu")
        with open(src, "w") as f:
            f.write(CUDA_SOURCE)
        cmd = ["nvcc", "-arch=sm_90", "-cubin", "-o", os.path.join(d, "ceilings.cubin"), src]
        r = subprocess.run(cmd, capture_output=True, text=True)
        print(" ".join(cmd))
        print(r.stdout + r.stderr)
        return r.returncode


class Kernels:
    """The CUDA kernels above, launched with (grid, block, args) on torch's current stream."""

    def __init__(self, torch):
        self.torch = torch
        try:
            import cupy
            module = cupy.RawModule(code=CUDA_SOURCE, options=("--std=c++17",))
            self.fns = {name: module.get_function(name) for name in KERNELS}
            self.cupy = cupy
        except ImportError:
            self.cupy = None
            self.fns = None
            raise SystemExit("cupy is needed for the custom kernels (pip install cupy-cuda12x); "
                             "the torch-only measurements still ran")

    def launch(self, name, grid, block, args):
        """args: torch tensors (passed by pointer through __cuda_array_interface__), ("i32", v) or ("i64", v)."""
        cp = self.cupy
        conv = []
        for a in args:
            if hasattr(a, "data_ptr"):
                conv.append(cp.asarray(a))
            elif isinstance(a, tuple) and a[0] == "i64":
                conv.append(cp.int64(a[1]))
            else:
                conv.append(cp.int32(a[1] if isinstance(a, tuple) else a))
        stream = cp.cuda.ExternalStream(self.torch.cuda.current_stream().cuda_stream)
        with stream:
            self.fns[name](grid, block, tuple(conv))


def timed(torch, fn, reps=20, warmup=3):
    """Median seconds of fn() over reps CUDA-event timed calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    return statistics.median(times)


def measure(args):
    import torch
    dev = torch.cuda.get_device_properties(0)
    sms = dev.multi_processor_count
    clock_ghz = args.clock_ghz
    out = {"device": dev.name, "sms": sms, "l2_bytes": getattr(dev, "L2_cache_size", None),
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "clock_ghz_assumed": clock_ghz, "results": {}}
    res = out["results"]

    n = 1 << 30
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    t = timed(torch, lambda: b.copy_(a))
    res["hbm_bytes_per_s"] = {"value": 2 * n / t, "method": "torch copy_ of 1 GiB, bytes read + written / s"}
    del a, b

    m = 8192
    x = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    t = timed(torch, lambda: torch.matmul(x, y), reps=10)
    res["bf16_matmul_flops_per_s"] = {"value": 2 * m ** 3 / t, "method": "torch.matmul bf16 8192^3 (cuBLAS)"}
    del x, y

    try:
        k = Kernels(torch)
    except SystemExit as e:
        out["kernels"] = str(e)
        return out

    sink = torch.empty(sms * 8 * 1024 * 4, device="cuda", dtype=torch.float32)
    t = timed(torch, lambda: k.launch("empty_kernel", (1,), (32,), []), reps=200)
    res["launch_overhead_us"] = {"value": t * 1e6, "method": "empty kernel, CUDA-event time per launch"}

    iters = 4096
    blocks, threads = sms * 4, 512
    t = timed(torch, lambda: k.launch("shared_read", (blocks,), (threads,), [sink, iters]))
    bytes_ = blocks * threads * iters * 16
    res["shared_bytes_per_clk_per_sm"] = {"value": bytes_ / t / (clock_ghz * 1e9) / sms,
                                          "method": "ld.shared.v4 loop, conflict-free; per SM per clock"}

    l2n = (16 << 20) // 16
    buf = torch.randn(l2n * 4, device="cuda", dtype=torch.float32)
    reps = 20
    t = timed(torch, lambda: k.launch("stream_read", (sms * 8,), (512,), [buf, sink, ("i64", l2n), reps]))
    res["l2_bytes_per_s"] = {"value": l2n * 16 * reps / t, "method": "16 MB buffer re-read 20x, ld.global.cg.v4"}

    t = timed(torch, lambda: k.launch("ffma_chains", (sms * 8,), (256,), [sink, 4096]))
    res["fp32_lanes_per_clk_per_sm"] = {"value": sms * 8 * 256 * 8 * 4096 / t / (clock_ghz * 1e9) / sms,
                                        "method": "8 independent FFMA chains per thread"}

    for label, size in (("dram_latency_ns", 1 << 30), ("l2_latency_ns", 4 << 20)):
        count = size // 8
        stride = 4099 if size > (64 << 20) else 33          # odd strides visit every element
        idx = torch.arange(count, device="cuda", dtype=torch.int64)
        nxt = (idx + stride) % count
        outp = torch.empty(1, device="cuda", dtype=torch.int64)
        steps = 100000
        k.launch("pointer_chase", (1,), (1,), [nxt, outp, ("i64", 0), steps])   # warm (L2 case: cached)
        t = timed(torch, lambda: k.launch("pointer_chase", (1,), (1,), [nxt, outp, ("i64", 0), steps]), reps=5)
        res[label] = {"value": t / steps * 1e9, "method": "pointer chase, %d MB, stride %d elements" % (size >> 20, stride)}
    return out


def update_machine(machine_path, measured, out_dir):
    with open(machine_path) as f:
        machine = json.load(f)
    res = measured["results"]
    src = "measured by bench/measure_ceilings.py on %s, %s" % (measured["device"], measured["date"])
    sources = machine.setdefault("sources", {})
    for field in ("hbm_bytes_per_s", "l2_bytes_per_s", "shared_bytes_per_clk_per_sm", "dram_latency_ns",
                  "l2_latency_ns", "launch_overhead_us", "fp32_lanes_per_clk_per_sm"):
        if field in res:
            if field == "hbm_bytes_per_s":   # keep the datasheet peak; the measured copy sets the efficiency
                eff = res[field]["value"] / machine["hbm_bytes_per_s"]
                machine.setdefault("efficiency", {})["hbm_simt"] = round(eff, 4)
                sources["efficiency.hbm_simt"] = src + ": copy / datasheet peak"
            else:
                machine[field] = round(res[field]["value"], 3)
                sources[field] = src
    if "bf16_matmul_flops_per_s" in res:
        peak = machine["tensor_flops_per_clk_per_sm"] * machine["sms"] * machine["clock_ghz"] * 1e9
        machine.setdefault("efficiency", {})["wgmma"] = round(res["bf16_matmul_flops_per_s"]["value"] / peak, 4)
        sources["efficiency.wgmma"] = src + ": cuBLAS bf16 / tensor peak"
    path = os.path.join(out_dir, os.path.basename(machine_path))
    with open(path, "w") as f:
        json.dump(machine, f, indent=2)
        f.write("\n")
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--machine", help="machine description to update with the measured values")
    ap.add_argument("--clock-ghz", type=float, default=1.98, help="SM clock for per-clock figures (default 1.98)")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--compile-only", action="store_true")
    args = ap.parse_args(argv)
    if args.dry_run:
        print(__doc__)
        print(CUDA_SOURCE)
        return 0
    if args.compile_only:
        return compile_only()
    measured = measure(args)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "ceilings.json"), "w") as f:
        json.dump(measured, f, indent=1)
    for name, r in measured["results"].items():
        print("%-30s %14.4g   %s" % (name, r["value"], r["method"]))
    if args.machine:
        print("wrote", update_machine(args.machine, measured, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
