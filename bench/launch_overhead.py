#!/usr/bin/env python3
"""Host launch overhead: microseconds of host time per call for a 3-tensor kernel, CAKE against peers in the
same process (docs/runtime.md, "Launch overhead").

    bench/build.sh                                        # here: cakec, libcake_runtime, bench/out/sm_90/*.cubin
    python3 bench/launch_overhead.py --out DIR            # on the device machine (carry bench/out)
    python3 bench/launch_overhead.py --out DIR --fake-driver build/runtime/libcake_fake_cuda.so   # CPU run

What is timed: `calls` back-to-back launches of out = a + b over `n` bf16 elements (a size whose kernel takes a
few microseconds, so the GPU keeps up and the host is the limit), perf_counter around the issue loop only,
synchronised before and after.  After a warm-up of each method, `repeats` rounds time one such loop per
method, the methods in an order rotated by one each round (so drift of the host's speed spreads over all of
them, as docs/measurement.md times peers); each method's median, min and max over the rounds, divided by
`calls`.  Methods:
  cakeir            mod.vector_add(a, b, c) with torch tensors: the kernel's __call__ in C (KernelCall), tensors
                    read through torch's DLPack C exchange API (the native path of the extension
                    cakeir._prepared_call when it loads)
  cakeir-previous   the path before that, in the same process: the Python Kernel.__call__ in front of the
                    PreparedCall of an earlier build of the extension (--previous-extension, default
                    bench/out/previous/_prepared_call.abi3.so), which reads each tensor through its Python
                    methods; left out when that file is absent
  cakeir-python     the same call on a kernel with `native_launch = False`: the prepared path in Python over
                    ctypes
  cakeir-general    mod.vector_add(a, b, C=c): a keyword argument takes the general path (marshalling and
                    every check on each call), for comparison
  cakeir-op         the same kernel as a torch.library custom op (cakeir.torch.register)
  triton            a @triton.jit vector add over the same tensors (when triton imports)
  torch             torch.add(a, b, out=c)
Each method's result is checked against a + b first.  For the cakeir methods the report says which path took
the timed calls (Kernel.launch_counts(): native, prepared or general; "mixed" if more than one did), and
"tensor_reads" how the native path read the tensors ("exchange": torch's C API; "methods": their Python
methods, as with a torch older than 2.10).  A CUDA graph capture of the cakeir call (after one eager warm-up
call, which loads the module and prepares the launch) is replayed and checked.

With --fake-driver (no GPU, no CUDA torch needed) the CAKE methods run against the fake CUDA driver, on the
stand-in torch tensors of runtime/testing/fake_torch.py (read through a DLPack exchange API as torch's are;
its current-device query is a C function, as torch's is) when the tests' _cake_fake_dlpack extension is
found beside the fake driver, else on DevicePtr arguments: host-only numbers of this machine, which claim
nothing about a GPU.  Writes DIR/launch_overhead.json and DIR/launch_overhead.md."""

import argparse
import ctypes
import json
import os
import platform
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))


def timed_rounds(methods, calls, repeats, sync, warmup):
    """{name: {median_us, min_us, max_us}}: host microseconds per call of each method, `repeats` rounds of one
    `calls`-long loop per method in an order rotated each round, after `warmup` calls of each."""
    names = list(methods)
    for name in names:
        for _ in range(warmup):
            methods[name]()
    samples = {name: [] for name in names}
    for round_index in range(repeats):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            call = methods[name]
            sync()
            start = time.perf_counter()
            for _ in range(calls):
                call()
            elapsed = time.perf_counter() - start
            sync()
            samples[name].append(elapsed / calls * 1e6)
    return {name: {"median_us": statistics.median(values), "min_us": min(values), "max_us": max(values)}
            for name, values in samples.items()}


def load_previous(path):
    """The earlier build of the extension at `path` as a module (not registered in sys.modules), or None."""
    if not path or not os.path.isfile(path):
        return None
    from cakeir import _native
    return _native._load_from(path)


def cake_kernels(cakeir, cubin, previous):
    """{method: kernel} for the cakeir methods, each its own load of the module (so that each kernel's
    launch_counts() are its method's): the native path (when it loads), the Python path, the general path and
    the previous path (a plain Kernel whose Python __call__ goes to the previous extension's PreparedCall)."""
    native = cakeir.load(cubin).vector_add
    python = cakeir.load(cubin).vector_add
    python.native_launch = False
    kernels = {"cakeir": native, "cakeir-python": python, "cakeir-general": cakeir.load(cubin).vector_add}
    if previous is not None:
        module = cakeir.load(cubin)
        old = cakeir.Kernel(module, module.vector_add._handle)
        address = ctypes.cast(old._lib.cake_launch_prepared, ctypes.c_void_p).value
        old._native_call = previous.PreparedCall(address, tuple(old._tensor_params), cakeir.DevicePtr,
                                                 cakeir.error_for)
        kernels["cakeir-previous"] = old
    return kernels


def time_methods(methods, kernels, args, sync, tensors):
    """timed_rounds() plus, for the cakeir methods, "path" (which path of the kernel took the timed calls) and
    for the native one "tensor_reads" (how it read the tensors)."""
    before = {name: kernels[name].launch_counts() for name in methods if name in kernels}
    native = kernels["cakeir"]._native_call
    reads = native.exchange_reads if native is not None else 0
    rows = timed_rounds(methods, args.calls, args.repeats, sync, args.warmup)
    for name in rows:
        if name not in kernels:
            continue
        moved = [path for path, count in kernels[name].launch_counts().items() if count != before[name][path]]
        rows[name]["path"] = moved[0] if len(moved) == 1 else "mixed" if moved else "none"
    if native is not None and tensors and "cakeir" in rows:
        calls = args.calls * args.repeats + args.warmup
        rows["cakeir"]["tensor_reads"] = "exchange" if native.exchange_reads - reads >= calls * 3 else "methods"
    return rows


def run_fake(args, results):
    os.environ["CAKE_LIBCUDA"] = os.path.abspath(args.fake_driver)
    import cakeir
    results["launch_path"] = "%s (%s)" % (cakeir.launch_path(), cakeir.launch_path_reason())
    fake_dlpack = args.fake_dlpack or os.path.join(os.path.dirname(os.path.abspath(args.fake_driver)),
                                                   "_cake_fake_dlpack.abi3.so")
    n = args.n
    tensors = os.path.isfile(fake_dlpack)
    if tensors:
        sys.path.insert(0, os.path.join(REPO, "runtime", "testing"))
        from fake_torch import ExchangeTorch, load_fake_dlpack
        torch = sys.modules["torch"] = ExchangeTorch(load_fake_dlpack(fake_dlpack))
        torch._C._cuda_getDevice = int  # a C function answering device 0, as torch's is
        a, b, c = (torch.Tensor(0x7F0000000000 + i * 0x10000000, (n,), "torch.bfloat16") for i in range(3))
        results["arguments"] = "stand-in torch tensors (runtime/testing/fake_torch.py)"
    else:
        a, b, c = (cakeir.DevicePtr(0x7F0000000000 + i * 0x10000000, (n,), "bf16") for i in range(3))
        results["arguments"] = "DevicePtr (no %s)" % fake_dlpack
    kernels = cake_kernels(cakeir, args.cubin, load_previous(args.previous_extension))
    methods = {"cakeir": lambda: kernels["cakeir"](a, b, c)}
    if "cakeir-previous" in kernels:
        methods["cakeir-previous"] = lambda: kernels["cakeir-previous"](a, b, c)
    methods["cakeir-python"] = lambda: kernels["cakeir-python"](a, b, c)
    methods["cakeir-general"] = lambda: kernels["cakeir-general"](a, b, C=c)
    for call in methods.values():
        call()  # the first call prepares the launch
    results["methods"] = time_methods(methods, kernels, args, lambda: None, tensors)


def run_device(args, results):
    import torch
    import cakeir
    import cakeir.torch
    results["launch_path"] = "%s (%s)" % (cakeir.launch_path(), cakeir.launch_path_reason())
    kernels = cake_kernels(cakeir, args.cubin, load_previous(args.previous_extension))
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

    methods = {"cakeir": lambda: kernel(a, b, c)}
    if "cakeir-previous" in kernels:
        methods["cakeir-previous"] = lambda: kernels["cakeir-previous"](a, b, c)
    methods["cakeir-python"] = lambda: kernels["cakeir-python"](a, b, c)
    methods["cakeir-general"] = lambda: kernels["cakeir-general"](a, b, C=c)
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

    correct = {name: call for name, call in methods.items() if check(name, call)}
    results["methods"] = time_methods(correct, kernels, args, sync, True)

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
    parser.add_argument("--fake-driver", help="libcake_fake_cuda.so: CPU run (host-only numbers, no GPU claims)")
    parser.add_argument("--fake-dlpack", help="the tests' _cake_fake_dlpack.abi3.so for the CPU run (default: "
                        "beside --fake-driver)")
    parser.add_argument("--previous-extension",
                        default=os.path.join(REPO, "bench", "out", "previous", "_prepared_call.abi3.so"),
                        help="an earlier build of _prepared_call.abi3.so, timed as cakeir-previous")
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
    heading = ("CPU run, fake driver, %s: host-only numbers of this machine, no timing claims about a GPU"
               % results.get("arguments", "?")) if args.fake_driver else results.get("device", "?")
    lines = ["# Host launch overhead (%s)" % heading,
             "", "%d elements, %d calls x %d rounds (methods in rotating order); host us per call"
             % (args.n, args.calls, args.repeats),
             "", "cakeir launch path: %s" % results.get("launch_path", "?"),
             "", "| method | path | median us | min us | max us |", "| --- | --- | --- | --- | --- |"]
    for name, row in results["methods"].items():
        path = row.get("path", "-") + (", tensors: %s" % row["tensor_reads"] if "tensor_reads" in row else "")
        lines.append("| %s | %s | %.2f | %.2f | %.2f |" % (name, path, row["median_us"], row["min_us"],
                                                          row["max_us"]))
    methods = results["methods"]
    for peer in ("cakeir-previous", "torch", "triton"):
        if "cakeir" in methods and peer in methods:
            lines.append("\n%s / cakeir: %.2fx (medians)" % (peer, methods[peer]["median_us"] /
                                                             methods["cakeir"]["median_us"]))
    if results.get("checks"):
        lines += ["", "checks: " + ", ".join("%s %s" % (k, "ok" if v else "WRONG") for k, v in results["checks"].items())]
    with open(os.path.join(args.out, "launch_overhead.md"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(results.get("checks", {}).values()) else 1


if __name__ == "__main__":
    sys.exit(main())
