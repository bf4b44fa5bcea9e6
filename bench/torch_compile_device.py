#!/usr/bin/env python3
"""A CAKE kernel inside torch.compile(fullgraph=True) on a GPU: the custom operator of cakeir.torch traced by the
default (inductor) backend with real CUDA tensors, its result against eager torch, and the compiled function
captured into a CUDA graph and replayed on new inputs.

    python3 bench/torch_compile_device.py --cubin bench/out/sm_90/vector_add.cubin --out $OUT

The cubin is samples/vector_add.cake's (bf16 C = A + B), built here and carried.  Checks: one graph, no graph
break (fullgraph=True raises on one), the operator in the traced graph, bit-equal results to eager torch (a bf16
sum rounds once either way), the inputs untouched; then CUDA-graph capture after warm-up on a side stream (the
order torch's documentation gives), replay after the inputs are refilled in place, bit-equal again.  Writes
torch_compile.json."""

import argparse
import json
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=1 << 20)
    args = ap.parse_args()

    import torch
    import cakeir
    import cakeir.torch

    kernel = cakeir.load(args.cubin).vector_add
    op = cakeir.torch.register(kernel, name="cakeir_device::vector_add", outputs=["C"])
    graphs = []

    def recording_inductor(gm, example_inputs):
        graphs.append(str(gm.graph))
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)

    def f(x, y, out):
        op(x * 2, y, out)
        return out + 1

    compiled = torch.compile(f, fullgraph=True, backend=recording_inductor)
    gen = torch.Generator(device="cuda").manual_seed(20261203)
    a = torch.randn(args.n, device="cuda", generator=gen).to(torch.bfloat16)
    b = torch.randn(args.n, device="cuda", generator=gen).to(torch.bfloat16)
    a0, b0 = a.clone(), b.clone()
    out = torch.full((args.n,), float("nan"), device="cuda", dtype=torch.bfloat16)
    result = compiled(a, b, out)
    torch.cuda.synchronize()
    expected = ((a * 2).float() + b.float()).to(torch.bfloat16)
    record = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "n": args.n,
              "graphs": len(graphs), "op_in_graph": any("cakeir_device.vector_add" in g for g in graphs),
              "compiled_equal": bool(torch.equal(out, expected) and torch.equal(result, expected + 1)),
              "inputs_untouched": bool(torch.equal(a, a0) and torch.equal(b, b0))}

    # CUDA graph: warm up on a side stream, capture, refill the inputs in place, replay.
    static_out = torch.empty_like(out)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            kernel(a, b, static_out)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        kernel(a, b, static_out)
    a.copy_(torch.randn(args.n, device="cuda", generator=gen).to(torch.bfloat16))
    b.copy_(torch.randn(args.n, device="cuda", generator=gen).to(torch.bfloat16))
    static_out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    record["graph_replay_equal"] = bool(torch.equal(static_out, (a.float() + b.float()).to(torch.bfloat16)))
    record["ok"] = all(record[k] for k in ("op_in_graph", "compiled_equal", "inputs_untouched",
                                           "graph_replay_equal")) and record["graphs"] == 1
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "torch_compile.json"), "w") as f_out:
        json.dump(record, f_out, indent=1)
    print(json.dumps(record))
    return 0 if record["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
