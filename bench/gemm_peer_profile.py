#!/usr/bin/env python3
"""What torch.matmul runs for each GEMM shape of bench/library_bench.py, and a single-variant driver for ncu.

    # the cuBLAS kernel(s) torch launches per shape (name: tile, cluster, split/stream-K), with their GPU time
    python3 bench/gemm_peer_profile.py kernels --out DIR/peer_kernels.json [--set held_out [--held-out-seed S]]
    # one library variant (or torch) at one shape, a few launches, inside the NVTX range `prof` (`ncu --nvtx --nvtx-include prof/`)
    python3 bench/gemm_peer_profile.py launch --library LIB --variant persistent_bn256 --shape 4096,4096,4096

The names come from torch.profiler (CUDA activity).  bf16, C = A . B^T, the shapes of library_bench.gemm_shapes
(or its held-out set).
"""

import argparse
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "runtime", "python"))

import torch  # noqa: E402

from library_bench import gemm_shapes, held_out_shapes  # noqa: E402


def peer_kernels(out, shapes):
    from torch.profiler import ProfilerActivity, profile
    records = []
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(3):
            torch.matmul(a, b.t(), out=c)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                torch.matmul(a, b.t(), out=c)
            torch.cuda.synchronize()
        kernels = collections.OrderedDict()
        for ev in prof.events():
            if ev.device_type == torch.autograd.DeviceType.CUDA:
                entry = kernels.setdefault(ev.name, [0, 0.0])
                entry[0] += 1
                entry[1] += ev.device_time_total if hasattr(ev, "device_time_total") else ev.cuda_time_total
        rec = {"M": m, "N": n, "K": k,
               "kernels": [{"name": name, "launches_per_call": cnt / 5, "us_per_call": us / 5}
                           for name, (cnt, us) in kernels.items()]}
        records.append(rec)
        print("%6d %6d %6d  %s" % (m, n, k, " | ".join("%s (%.1f us)" % (x["name"][:110], x["us_per_call"])
                                                         for x in rec["kernels"])), flush=True)
        del a, b, c
    with open(out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "records": records}, f,
                  indent=1)


def launch(library, variant, shape, count):
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=gen)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    if variant == "torch":
        fn = lambda: torch.matmul(a, b.t(), out=c)  # noqa: E731
    else:
        import cakeir
        lib = cakeir.load_library(library)
        kernel = lib.variants[variant]
        fn = lambda: kernel(a, b, c)  # noqa: E731
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("prof")   # ncu --nvtx --nvtx-include prof/ sees only these launches
    for _ in range(count):
        fn()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    err = (c.float() - (a.float() @ b.float().t())).abs().max().item()
    print("%s %s max_abs_err %.3g" % (variant, shape, err))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("kernels")
    p.add_argument("--out", required=True)
    p.add_argument("--set", choices=("train", "held_out"), default="train", help="library_bench's shape sets")
    p.add_argument("--held-out-seed", type=int, default=2026)
    p = sub.add_parser("launch")
    p.add_argument("--library", default="")
    p.add_argument("--variant", required=True)
    p.add_argument("--shape", required=True)
    p.add_argument("--count", type=int, default=4)
    args = ap.parse_args()
    if args.cmd == "kernels":
        peer_kernels(args.out, gemm_shapes() if args.set == "train" else held_out_shapes(seed=args.held_out_seed))
    else:
        launch(args.library, args.variant, tuple(int(x) for x in args.shape.split(",")), args.count)


if __name__ == "__main__":
    main()
