#!/usr/bin/env python3
"""Host launch overhead: microseconds of host time per call for a 3-tensor kernel, CAKE against peers in the
same process (docs/runtime.md, "Launch overhead").

    bench/build.sh                                        # here: cakec, libcake_runtime, bench/out/sm_90/*.cubin
    python3 bench/launch_overhead.py --out DIR            # on the device machine (carry bench/out)
    python3 bench/launch_overhead.py --out DIR --fake-driver build/runtime/libcake_fake_cuda.so   # CPU smoke run

What is timed: `calls` back-to-back launches of out = a + b over `n` bf16 elements (a size whose kernel takes a
few microseconds, so the GPU keeps up and the host is the limit), perf_counter around the issue loop only,
synchronised before and after; the median over `repeats` such loops, divided by `calls`.  Methods:
  cakeir            mod.vector_add(a, b, c) with torch tensors (the prepared-launch path, through the native
                    extension cakeir._prepared_call when it loads)
  cakeir-python     the same call on a second load of the module with `kernel.native_launch = False`: the
                    prepared-launch path in Python over ctypes
  cakeir-general    mod.vector_add(a, b, C=c): a keyword argument takes the general path (marshalling and
                    every check on each call), for comparison
  cakeir-op         the same kernel as a torch.library custom op (cakeir.torch.register)
  triton            a @triton.jit vector add over the same tensors (when triton imports)
  torch             torch.add(a, b, out=c)
Each method's result is checked against a + b first.  For the cakeir methods the report says which path took
the timed calls (Kernel.launch_counts(): native, prepared or general; "mixed" if more than one did).  A CUDA graph capture of the cakeir call (after one
eager warm-up call, which loads the module and prepares the launch) is replayed and checked.

With --fake-driver (no GPU, no torch needed) the CAKE methods run against the fake CUDA driver with DevicePtr
arguments: a smoke test that the script and the prepared path work; its numbers are host-only and claim
nothing about a GPU.  Writes DIR/launch_overhead.json and DIR/launch_overhead.md."""

import argparse
import json
import os
import platform
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))


def timed(call, calls, repeats, sync):
    """Median host microseconds per call over `repeats` loops of `calls` calls."""
    per_call = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        for _ in range(calls):
            call()
        elapsed = time.perf_counter() - start
        sync()
        per_call.append(elapsed / calls * 1e6)
    return {"median_us": statistics.median(per_call), "min_us": min(per_call), "max_us": max(per_call)}


def cake_kernels(cakeir, cubin):
    """{method: kernel} for the cakeir methods: the native path (when it loads) and, on another load of the
    module, the Python path."""
    native = cakeir.load(cubin).vector_add
    python = cakeir.load(cubin).vector_add
    python.native_launch = False
    return {"cakeir": native, "cakeir-python": python, "cakeir-general": native}


def timed_path(kernel, call, calls, repeats, sync):
    """timed() plus "path": which path of `kernel` took the timed calls."""
    before = kernel.launch_counts()
    row = timed(call, calls, repeats, sync)
    moved = [path for path, count in kernel.launch_counts().items() if count != before[path]]
    row["path"] = moved[0] if len(moved) == 1 else "mixed" if moved else "none"
    return row


def run_fake(args, results):
    os.environ["CAKE_LIBCUDA"] = os.path.abspath(args.fake_driver)
    import cakeir
    results["launch_path"] = "%s (%s)" % (cakeir.launch_path(), cakeir.launch_path_reason())
    kernels = cake_kernels(cakeir, args.cubin)
    n = args.n
    a, b, c = (cakeir.DevicePtr(0x7F0000000000 + i * 0x10000000, (n,), "bf16") for i in range(3))
    calls = {"cakeir": lambda: kernels["cakeir"](a, b, c), "cakeir-python": lambda: kernels["cakeir-python"](a, b, c),
             "cakeir-general": lambda: kernels["cakeir-general"](a, b, C=c)}
    for name, call in calls.items():
        call()  # the first call prepares the launch
        results["methods"][name] = timed_path(kernels[name], call, args.calls, args.repeats, lambda: None)


def run_device(args, results):
    import torch
    import cakeir
    import cakeir.torch
    results["launch_path"] = "%s (%s)" % (cakeir.launch_path(), cakeir.launch_path_reason())
    kernels = cake_kernels(cakeir, args.cubin)
    kernel = kernels["cakeir"]
    n = args.n
    a = torch.randn(n, device="cuda").to(torch.bfloat16)
    b = torch.randn(n, device="cuda").to(torch.bfloat16)
    c = torch.empty_like(a)
    expected = (a.float() + b.float()).to(torch.bfloat16)
    sync = torch.cuda.synchronize
    results["device"] = torch.cuda.get_device_name()
    results["torch"] = torch.__version__
    results["checks"] = {}

    def check(name, call):
        c.fill_(float("nan"))
        call()
        sync()
        ok = bool(torch.equal(c, expected))
        results["checks"][name] = ok
        if not ok:
            print("launch_overhead: %s computed a wrong result" % name, file=sys.stderr)
        return ok

    methods = {"cakeir": lambda: kernel(a, b, c), "cakeir-python": lambda: kernels["cakeir-python"](a, b, c),
               "cakeir-general": lambda: kernel(a, b, C=c)}
    op = cakeir.torch.register(kernel, name="cakeir_bench::vector_add", outputs=["C"])
    methods["cakeir-op"] = lambda: op(a, b, c)
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def add_kernel(x, y, out, count, BLOCK: tl.constexpr):
            offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offsets < count
            tl.store(out + offsets, (tl.load(x + offsets, mask=mask).to(tl.float32) +
                                     tl.load(y + offsets, mask=mask).to(tl.float32)).to(tl.bfloat16), mask=mask)

        grid = (triton.cdiv(n, 1024),)
        methods["triton"] = lambda: add_kernel[grid](a, b, c, n, BLOCK=1024)
        results["triton"] = triton.__version__
    except Exception as error:  # noqa: BLE001 - triton missing or broken: report, do not fail
        results["triton_error"] = "%s: %s" % (type(error).__name__, error)
    methods["torch"] = lambda: torch.add(a, b, out=c)

    for name, call in methods.items():
        if check(name, call):
            for _ in range(args.warmup):
                call()
            if name in kernels:
                results["methods"][name] = timed_path(kernels[name], call, args.calls, args.repeats, sync)
            else:
                results["methods"][name] = timed(call, args.calls, args.repeats, sync)

    # CUDA graph: capture one launch after the eager warm-up above, replay it with new inputs in place.
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        kernel(a, b, c)  # warm-up on the capture stream: module loaded, launch prepared
    torch.cuda.current_stream().wait_stream(stream)
    with torch.cuda.graph(graph):
        kernel(a, b, c)
    a.copy_(torch.randn(n, device="cuda").to(torch.bfloat16))
    expected = (a.float() + b.float()).to(torch.bfloat16)
    results["checks"]["cuda-graph"] = check("cuda-graph", graph.replay)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for launch_overhead.json / .md")
    parser.add_argument("--cubin", default=os.path.join(REPO, "bench", "out", "sm_90", "vector_add.cubin"))
    parser.add_argument("--n", type=int, default=1 << 16, help="elements (default 65536)")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--fake-driver", help="libcake_fake_cuda.so: CPU smoke run (no timing claims)")
    args = parser.parse_args()
    library = os.path.join(REPO, "bench", "out", "libcake_runtime.so")
    if "CAKE_RUNTIME_LIB" not in os.environ and os.path.isfile(library):
        os.environ["CAKE_RUNTIME_LIB"] = library
    results = {"n": args.n, "calls": args.calls, "repeats": args.repeats, "cubin": args.cubin,
               "python": platform.python_version(), "smoke": bool(args.fake_driver), "methods": {}}
    if args.fake_driver:
        run_fake(args, results)
    else:
        run_device(args, results)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "launch_overhead.json"), "w") as handle:
        json.dump(results, handle, indent=1)
    lines = ["# Host launch overhead (%s)" % ("smoke run, fake driver: no timing claims" if args.fake_driver
                                               else results.get("device", "?")),
             "", "%d elements, %d calls x %d repeats; median host us per call" % (args.n, args.calls, args.repeats),
             "", "cakeir launch path: %s" % results.get("launch_path", "?"),
             "", "| method | path | median us | min us | max us |", "| --- | --- | --- | --- | --- |"]
    for name, row in results["methods"].items():
        lines.append("| %s | %s | %.2f | %.2f | %.2f |" % (name, row.get("path", "-"), row["median_us"], row["min_us"],
                                                          row["max_us"]))
    if results.get("checks"):
        lines += ["", "checks: " + ", ".join("%s %s" % (k, "ok" if v else "WRONG") for k, v in results["checks"].items())]
    with open(os.path.join(args.out, "launch_overhead.md"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(results.get("checks", {}).values()) else 1


if __name__ == "__main__":
    sys.exit(main())
