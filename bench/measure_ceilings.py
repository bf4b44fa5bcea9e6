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
  dram_latency_ns         one thread chasing a random cycle through 1 GiB (nodes 256 B apart), each timed run
                          on a part of the cycle nothing touched before (misses L2; TLB misses included)
  l2_latency_ns           a random cycle through a 4 MB buffer, walked once before timing (hits L2)
  launch_overhead_us      an empty kernel, CUDA-event pair around each launch with the stream held (the bench's
                          definition: bench/measure.time_runs); also launch_back_to_back_us: events around
                          2000 back-to-back launches queued behind a sleep kernel, per launch
  fp32 FMA rate           8 independent FFMA chains per thread (unrolled), 2048 threads per SM; lane FMAs and
                          FLOPs per SM per clock from clock64 (independent of the clock the GPU runs at), and
                          the SM clock under that load (clock64 / globaltimer)
The first run (bench/results/2026-11-29-h200-ceilings.json) timed the launch through cupy's host path
(33.8 us), chased 100000 pointers that a warm-up pass had just cached (DRAM = L2 = 149 ns) and ran an FFMA
loop whose counter and branch took a quarter of the issue slots (90.7 lanes/clk); this version fixes all three.
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
import time

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

// One thread follows `steps` pointers; next[i] holds the index of the next element (a random cycle).
extern "C" __global__ void pointer_chase(const long *__restrict__ next, long *out, long start, int steps) {
  long p = start;
  for (int i = 0; i < steps; ++i) p = __ldcg(next + p);
  out[0] = p;
}

// Independent FFMA chains: 8 per thread, `iters` x 32 rounds fully unrolled inside (so the loop's counter,
// compare and branch are 3 instructions per 256 FFMAs, not per 8).  Thread 0 of each block records its
// SM-clock cycles and nanoseconds (globaltimer) from start to end: cycles give FFMA per clock independent of
// the clock the GPU runs at, cycles / ns the clock under this load.
extern "C" __global__ void ffma_chains(float *out, long long *clocks, int iters) {
  long long c0 = clock64();
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      a0 = fmaf(a0, 0.999f, 0.001f); a1 = fmaf(a1, 0.999f, 0.001f); a2 = fmaf(a2, 0.999f, 0.001f);
      a3 = fmaf(a3, 0.999f, 0.001f); a4 = fmaf(a4, 0.999f, 0.001f); a5 = fmaf(a5, 0.999f, 0.001f);
      a6 = fmaf(a6, 0.999f, 0.001f); a7 = fmaf(a7, 0.999f, 0.001f);
    }
  }
  float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  if (s == -1.0f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    clocks[2 * blockIdx.x] = clock64() - c0;
    clocks[2 * blockIdx.x + 1] = (long long)(t1 - t0);
  }
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


def launch_overhead(torch, k):
    """Two figures for an empty 1-block kernel.  launch_overhead_us: the bench's definition of a timed launch
    (bench/measure.time_runs: one CUDA-event pair around each launch while the stream is held by a sleep kernel,
    so the host's launch path is not in it) - what a 1-element kernel costs in every measurement the cost model
    is calibrated on.  launch_back_to_back_us: CUDA events around 2000 back-to-back launches enqueued behind a
    sleep kernel, divided by 2000: the GPU's launch-to-launch time without events between them."""
    import measure
    fn = lambda: k.launch("empty_kernel", (1,), (32,), [])   # noqa: E731
    per_launch = measure.time_runs([fn], 400)
    count = 2000
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(100):
        fn()
    host_s = (time.perf_counter() - t0) / 100
    torch.cuda.synchronize()
    figures = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(int(min(1.0, 2.0 * count * host_s + 0.01) * 2.0e9))   # hold the stream while enqueueing
        start.record()
        for _ in range(count):
            fn()
        end.record()
        end.synchronize()
        figures.append(start.elapsed_time(end) * 1e3 / count)
    return {"launch_overhead_us": {"value": per_launch["ms"] * 1e3,
                                   "method": "empty kernel, median of %d CUDA-event pairs, one around each launch, "
                                             "stream held by a sleep kernel (bench/measure.time_runs)" % per_launch["iters"]},
            "launch_back_to_back_us": {"value": statistics.median(figures),
                                       "method": "CUDA events around %d back-to-back empty-kernel launches queued "
                                                 "behind a sleep kernel, per launch (median of 5); host enqueue "
                                                 "%.1f us per launch" % (count, host_s * 1e6)}}


def fp32_rate(torch, k, sms, sink):
    """FP32 FMA rate: 8 blocks x 256 threads per SM (all resident at once), 8 independent FFMA chains per
    thread.  Lane FMAs per SM per SM-clock from clock64 in each block (clock independent), and the SM clock
    under this load (cycles / globaltimer ns)."""
    blocks, threads, iters = sms * 8, 256, 256
    clocks = torch.zeros(2 * blocks, device="cuda", dtype=torch.int64)
    args = [sink, clocks, iters]
    t = timed(torch, lambda: k.launch("ffma_chains", (blocks,), (threads,), args), reps=10)
    cycles, ns = clocks[0::2].double(), clocks[1::2].double()
    block_cycles = float(cycles.median().item())
    clock_ghz = float((cycles / ns.clamp(min=1)).median().item())
    lane_fmas_per_sm = 8 * threads * 8 * 32 * iters
    # Per SM clock from the whole launch's event time and the clock under load: lane FMAs per SM / (t * f).
    # (Dividing by one block's clock64 span instead over-counts whenever the 8 blocks of an SM are not all
    # resident at once - the first H200 run of this version read 217.8 lanes/clk against 128 lanes per SM.)
    lanes_per_clk = lane_fmas_per_sm / (t * clock_ghz * 1e9)
    return {"fp32_lanes_per_clk_per_sm": {"value": lanes_per_clk,
                                          "method": "8 blocks x 256 threads per SM, 8 independent FFMA chains per "
                                                    "thread (unrolled x32); lane FMAs per SM / (CUDA-event time x "
                                                    "SM clock under load); median block span %.0f cycles"
                                                    % block_cycles},
            "fp32_flops_per_clk_per_sm": {"value": 2 * lanes_per_clk, "method": "2 x fp32_lanes_per_clk_per_sm"},
            "fp32_flops_per_s": {"value": 2 * lane_fmas_per_sm * sms / t, "method": "FFMA FLOPs / CUDA-event time"},
            "sm_clock_ghz_under_fp32_load": {"value": clock_ghz, "method": "clock64 cycles / globaltimer ns per block"}}


def load_latency(torch, k):
    """Dependent-load latency of one thread.  DRAM: a random cycle through 4 Mi nodes 256 bytes apart (1 GiB,
    20x the 50 MB L2); every timed chase starts at a part of the cycle no earlier chase touched, so no load can
    hit in L2 (random TLB misses over 1 GiB are included, as a streaming kernel's first touches see some of
    them).  L2: a random cycle through a 4 MB buffer, walked once before timing so it is resident."""
    out = {}
    outp = torch.empty(1, device="cuda", dtype=torch.int64)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    for label, size, spacing, steps, warm in (("dram_latency_ns", 1 << 30, 256, 20000, False),
                                             ("l2_latency_ns", 4 << 20, 64, 20000, True)):
        nodes = size // spacing
        stride = spacing // 8                                       # int64 elements between nodes
        order = torch.randperm(nodes, device="cuda", generator=gen) * stride
        nxt = torch.zeros(size // 8, device="cuda", dtype=torch.int64)
        nxt[order] = torch.roll(order, -1)                          # node order[i] -> order[i + 1]: one cycle
        times = []
        runs = 6
        for r in range(runs + 1):
            start = int(order[(r * steps) % nodes].item()) if not warm else int(order[0].item())
            if warm or r == 0:       # r == 0: a warm-up launch (for DRAM: on its own part of the cycle)
                k.launch("pointer_chase", (1,), (1,), [nxt, outp, ("i64", start), min(nodes, steps)])
                torch.cuda.synchronize()
                if r == 0:
                    continue
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            k.launch("pointer_chase", (1,), (1,), [nxt, outp, ("i64", start), steps])
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) * 1e-3)
        out[label] = {"value": statistics.median(times) / steps * 1e9,
                      "method": "pointer chase, random cycle of %d nodes %d B apart (%d MB), %d dependent loads per "
                                "run, median of %d runs%s" % (nodes, spacing, size >> 20, steps, runs,
                                                              ", resident after a warm walk" if warm else
                                                              ", each run on an untouched part of the cycle")}
        del nxt, order
    return out


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
    res.update(launch_overhead(torch, k))

    res.update(fp32_rate(torch, k, sms, sink))                  # first: the SM clock under load for per-clock figures
    measured_clock = res["sm_clock_ghz_under_fp32_load"]["value"]
    if 0.5 <= measured_clock <= 2.5:        # a coarse globaltimer could give nonsense: keep --clock-ghz then
        clock_ghz = measured_clock
    out["clock_ghz_used"] = clock_ghz
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

    res.update(load_latency(torch, k))
    return out


def update_machine(machine_path, measured, out_dir):
    with open(machine_path) as f:
        machine = json.load(f)
    res = measured["results"]
    src = "measured by bench/measure_ceilings.py on %s, %s" % (measured["device"], measured["date"])
    sources = machine.setdefault("sources", {})
    # l2_bytes_per_s is reported but not copied: the SIMT stream kernel reached 3.0 TB/s in the first run while
    # hopper_gemm moves 8.1 TB/s of TMA boxes L2 -> SM, so it measures the kernel, not the L2 (docs/cost-model.md)
    for field in ("hbm_bytes_per_s", "shared_bytes_per_clk_per_sm", "dram_latency_ns",
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
