#!/usr/bin/env python3
"""Where the host time of one native launch goes, on a machine without a GPU: the pieces of a call of
mod.vector_add(a, b, c) timed on their own, in one process, each the minimum over rounds of a loop, in the
thread's CPU time (time.thread_time: time spent descheduled on a shared machine is not counted; the minimum,
as the pieces are short).  docs/runtime.md, "Launch overhead".

    python3 bench/launch_overhead_breakdown.py --fake-driver build/runtime/libcake_fake_cuda.so \\
        --fake-dlpack build/runtime/_cake_fake_dlpack.abi3.so [--previous-extension PATH]

Pieces (ns per call):
  call/*             the whole call through each path, on the stand-in torch tensors of runtime/testing/fake_torch.py
                     and the fake CUDA driver (as bench/launch_overhead.py's CPU run)
  prepared/*         the PreparedCall alone (prepared(args, None)): reads, signature match, stream, launch; the
                     difference to call/* is what reaches it (the C __call__, or the Python Kernel.__call__)
  torch-read/*       reading three real torch tensors (CPU ones; a CUDA tensor reads alike) as each path does:
                     `exchange` through torch.Tensor.__dlpack_c_exchange_api__ (one C call each), `methods`
                     through get_device(), dtype, shape, stride() and data_ptr() (the previous path; from Python
                     here, from C there); only when torch imports
  standin-read/*     the same two readings of the three stand-in tensors: what call/* spent on them, to be
                     replaced by torch-read/* for an estimate of a call on real torch tensors
  loop/empty         the timing loop's own cost (a lambda doing nothing), included in every call/* and prepared/*
The runtime's part (cake_launch_prepared and the fake driver) is inside prepared/*; bench/results says how it
was timed on its own.  Prints a table and writes it as JSON with --out."""

import argparse
import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
sys.path.insert(0, os.path.join(REPO, "runtime", "testing"))


def best(call, loops=20000, rounds=15):
    """Minimum over rounds of the mean CPU ns per call of a loop."""
    call()
    values = []
    for _ in range(rounds):
        start = time.thread_time_ns()
        for _ in range(loops):
            call()
        values.append((time.thread_time_ns() - start) / loops)
    return min(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fake-driver", required=True)
    parser.add_argument("--fake-dlpack", required=True)
    parser.add_argument("--cubin", required=True, help="vector_add.cubin (cakec samples/vector_add.cake --arch sm_90)")
    parser.add_argument("--previous-extension", default=os.path.join(REPO, "bench", "out", "previous",
                                                                      "_prepared_call.abi3.so"))
    parser.add_argument("--out")
    args = parser.parse_args()
    try:
        import torch as real_torch
    except ImportError:
        real_torch = None
    os.environ["CAKE_LIBCUDA"] = os.path.abspath(args.fake_driver)
    from fake_torch import ExchangeTorch, load_fake_dlpack
    fake = load_fake_dlpack(args.fake_dlpack)
    torch = sys.modules["torch"] = ExchangeTorch(fake)
    torch._C._cuda_getDevice = int  # a C function answering device 0, as torch's is
    import cakeir
    sys.path.insert(0, os.path.join(REPO, "bench"))
    from launch_overhead import cake_kernels, load_previous
    kernels = cake_kernels(cakeir, args.cubin, load_previous(args.previous_extension))
    tensors = tuple(torch.Tensor(0x7F0000000000 + i * 0x10000000, (65536,), "torch.bfloat16") for i in range(3))
    pieces = {}
    for name in ("cakeir", "cakeir-previous", "cakeir-python"):
        if name in kernels:
            kernel = kernels[name]
            pieces["call/" + name] = best(lambda: kernel(*tensors))
            if kernel._native_call is not None:
                prepared = kernel._native_call
                pieces["prepared/" + name] = best(lambda: prepared(tensors, None))
    pieces["loop/empty"] = best(lambda: None)

    def standin_methods():
        for t in tensors:
            t.get_device(), t.dtype, t.shape, t.stride(), t.data_ptr()
    pieces["standin-read/methods"] = best(standin_methods)
    pieces["standin-read/exchange"] = 3 * min(fake.time_exchange(tensors[0], 200000) for _ in range(9))
    if real_torch is not None:
        real = [real_torch.empty(65536, dtype=real_torch.bfloat16) for _ in range(3)]
        pieces["torch-read/exchange"] = 3 * min(fake.time_exchange(real[0], 200000) for _ in range(9))

        def methods():
            for t in real:
                t.get_device(), t.dtype, t.shape, t.stride(), t.data_ptr()
        pieces["torch-read/methods"] = best(methods)
    width = max(len(k) for k in pieces)
    for key, value in pieces.items():
        print("%-*s %8.1f ns" % (width, key, value))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(pieces, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
