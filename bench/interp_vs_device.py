#!/usr/bin/env python3
"""The CPU interpreter against the GPU: the same kernels on the same inputs, outputs compared bit for bit.

    python3 bench/interp_vs_device.py prepare --out bench/out/interp_vs_device     # here: cakec run + cubins
    python3 bench/interp_vs_device.py compare --dir bench/out/interp_vs_device --out $OUT   # GPU machine

prepare: for every case below, seeded inputs (NumPy; bf16 values are drawn as bf16-representable floats), the
interpreter's outputs (`cakec run` through cakeir.interpret, the case's shape and -D values) and the cubin
(`cakec --arch ARCH -o`, default sm_90a) go to DIR/<case>/ (inputs.npz, interp.npz, <kernel>.cubin + manifest), and DIR/cases.json lists
them.  compare (needs torch and a GPU; imports no compiler): loads each cubin through cakeir, uploads the same
inputs, fills the outputs with NaN (0x7f bytes for integers), launches once, and compares every output with the
interpreter's: bit-equal elements, max |diff| and max relative diff.  Where the arithmetic is deterministic
(copies, integer results, f32 sums in a fixed order) the outputs must be bit-equal; elsewhere (tensor-core
summation order, ex2.approx) within the case's tolerance.  Writes interp_vs_device.json and .md."""

import argparse
import json
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

# name, sample, kernel, defines, shape, inputs {name: (dtype, shape)}, outputs [(name, dtype, shape)],
# expectation: "bit" (bit-equal) or a relative tolerance on max |diff| / max |reference|
CASES = [
    ("vector_add", "samples/vector_add.cake", "vector_add", {}, {},
     {"A": ("bf16", [5003]), "B": ("bf16", [5003])}, [("C", "bf16", [5003])], "bit"),
    ("tma_copy", "samples/tma_copy.cake", "tma_copy", {}, {},
     {"In": ("bf16", [256, 192])}, [("Out", "bf16", [256, 192])], "bit"),
    ("block_reduce_sum", "samples/block_reduce_sum.cake", "block_reduce_sum", {}, {"G": 3},
     {"X": ("f32", [10000])}, [("Partial", "f32", [3])], 1e-6),
    ("simt_gemm", "samples/simt_gemm.cake", "simt_gemm", {}, {},
     {"A": ("f32", [200, 64]), "B": ("f32", [64, 132])}, [("C", "f32", [200, 132])], 1e-6),
    ("row_softmax", "samples/row_softmax.cake", "row_softmax", {}, {},
     {"X": ("bf16", [37, 520])}, [("Y", "bf16", [37, 520])], 1e-2),
    ("hopper_gemm", "samples/hopper_gemm.cake", "hopper_gemm", {}, {},
     {"A": ("bf16", [256, 128]), "B": ("bf16", [256, 128])}, [("C", "bf16", [256, 256])], 1e-2),
    ("kmeans_assign", "samples/kmeans_assign.cake", "kmeans_assign", {}, {},
     {"X": ("bf16", [300, 128]), "C": ("bf16", [200, 128]), "CN": ("f32", [200])},
     [("L", "i32", [300]), ("MinD", "f32", [300])], 1e-3),
    # tf32 inputs rounded to nearest (cvt.rna) in both: only the tensor core's summation order differs; inputs
    # truncated to tf32 instead would differ by ~1e-4 of the largest output
    ("tf32_gemm", "samples/tf32_gemm.cake", "tf32_gemm", {}, {},
     {"A": ("f32", [96, 64]), "B": ("f32", [64, 48])}, [("C", "f32", [96, 48])], 1e-5),
    # i64 division and remainder by constants (codegen's shift / bias / multiply-high sequences) over the whole
    # i64 range and its edges: C semantics, bit-equal
    ("int64_divrem", "tests/lit/codegen/div_const64.cake", "div_const64", {}, {},
     {"X": ("i64", [4099])}, [("Q", "i64", [4099, 12])], "bit"),
]


def _bf16_round(x):
    """Round float32 values to the nearest bf16 (ties to even), kept as float32."""
    import numpy as np
    u = x.astype(np.float32).view(np.uint32)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.view(np.float32)


def _inputs(case, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    out = {}
    for name, (dtype, shape) in case[5].items():
        if dtype == "i64":   # the whole range, its edges, small values and multiples of the divisors
            lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
            x = rng.integers(lo, hi, size=shape, dtype=np.int64, endpoint=True)
            edges = [lo, lo + 1, hi, hi - 1, 0, 1, -1, 2, -2, 3, -3, 4, -4, 7, -7, 1000003, -1000003,
                     2 ** 62, -2 ** 62, 3 * 1000003 * 7, -(3 * 1000003 * 7) - 1]
            x.flat[:len(edges)] = edges
            x.flat[len(edges):len(edges) + 1000] = rng.integers(-100, 100, size=1000)
            out[name] = x
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        out[name] = _bf16_round(x) if dtype == "bf16" else x
    if case[0] == "kmeans_assign":   # CN: the centroid norms the kernel expects, from the rounded centroids
        c = out["C"].astype(np.float64)
        out["CN"] = (c * c).sum(axis=1).astype(np.float32)
    return out


def prepare(args):
    import numpy as np
    from cakeir import interpret
    from cakeir._tools import find_cakec
    import subprocess
    cakec = find_cakec()
    os.makedirs(args.out, exist_ok=True)
    listed = []
    wanted = [c for c in args.cases.split(",") if c]
    unknown = set(wanted) - {c[0] for c in CASES}
    if unknown:
        sys.exit("interp_vs_device.py: unknown case(s) %s (cases: %s)" % (", ".join(sorted(unknown)),
                                                                          ", ".join(c[0] for c in CASES)))
    for i, case in enumerate(CASES):
        name, source, kernel, defines, shape, _, outputs, expect = case
        if wanted and name not in wanted:
            continue
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        inputs = _inputs(case, args.seed + i)
        result = interpret.run(os.path.join(REPO, source), inputs=inputs, outputs=[o[0] for o in outputs],
                               kernel=kernel, shape=shape, defines=defines, seed=args.seed)
        np.savez(os.path.join(folder, "inputs.npz"), **inputs)
        np.savez(os.path.join(folder, "interp.npz"), **{k: np.asarray(v) for k, v in result.items()})
        cmd = [cakec, os.path.join(REPO, source), "--arch", args.arch, "-o", os.path.join(folder, kernel + ".cubin")]
        for key, value in defines.items():
            cmd += ["-D", "%s=%s" % (key, value)]
        status = subprocess.run(cmd).returncode
        if status != 0:
            sys.exit("interp_vs_device.py: %s exited %d (3: no ptxas)" % (" ".join(cmd), status))
        listed.append({"name": name, "source": source, "kernel": kernel, "defines": defines, "shape": shape,
                       "inputs": {k: v[0] for k, v in case[5].items()},
                       "outputs": [{"name": o[0], "dtype": o[1], "shape": o[2]} for o in outputs],
                       "expect": expect})
        print("prepared", name, flush=True)
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump({"seed": args.seed, "cases": listed}, f, indent=1)


def compare(args):
    import numpy as np
    import torch
    import cakeir
    torch_dtype = {"bf16": torch.bfloat16, "f32": torch.float32, "i32": torch.int32, "i64": torch.int64}
    listed = json.load(open(os.path.join(args.dir, "cases.json")))["cases"]
    records = []
    for case in listed:
        folder = os.path.join(args.dir, case["name"])
        inputs = np.load(os.path.join(folder, "inputs.npz"))
        expected = np.load(os.path.join(folder, "interp.npz"))
        kernel = cakeir.load(os.path.join(folder, case["kernel"] + ".cubin")).kernels[case["kernel"]]
        tensors = {k: torch.from_numpy(inputs[k]).to("cuda", torch_dtype[case["inputs"][k]]) for k in case["inputs"]}
        before = {k: t.clone() for k, t in tensors.items()}
        outs = {}
        for o in case["outputs"]:
            t = torch.empty(o["shape"], dtype=torch_dtype[o["dtype"]], device="cuda")
            if t.dtype.is_floating_point:
                t.fill_(float("nan"))
            else:
                t.fill_(0x7F7F7F7F)
            outs[o["name"]] = t
        kernel(*[tensors[n] if n in tensors else outs[n] for n in kernel.param_names])
        torch.cuda.synchronize()
        record = {"case": case["name"], "expect": case["expect"], "outputs": [],
                  "inputs_untouched": all(torch.equal(before[k], tensors[k]) for k in tensors)}
        ok = record["inputs_untouched"]
        for o in case["outputs"]:
            gpu = outs[o["name"]].cpu().numpy() if o["dtype"] in ("i32", "i64") else outs[o["name"]].float().cpu().numpy()
            ref = expected[o["name"]]
            ref = ref.astype(gpu.dtype)
            equal = int(np.sum((gpu == ref) | (np.isnan(gpu) & np.isnan(ref)))) if gpu.dtype.kind == "f" else \
                int(np.sum(gpu == ref))
            diff = np.abs(gpu.astype(np.float64) - ref.astype(np.float64))
            scale = max(float(np.max(np.abs(ref))), 1e-30)
            entry = {"name": o["name"], "elements": int(ref.size), "bit_equal": equal,
                     "max_abs_diff": float(np.nanmax(diff)) if diff.size else 0.0,
                     "max_rel_diff": float(np.nanmax(diff)) / scale if diff.size else 0.0,
                     "nan_in_gpu": bool(gpu.dtype.kind == "f" and np.isnan(gpu).any())}
            if case["expect"] == "bit":
                entry["ok"] = equal == ref.size
            else:
                entry["ok"] = (not entry["nan_in_gpu"]) and entry["max_rel_diff"] <= case["expect"]
            ok = ok and entry["ok"]
            record["outputs"].append(entry)
        record["ok"] = ok
        records.append(record)
        print(case["name"], "ok" if ok else "MISMATCH", [(e["name"], e["bit_equal"], e["elements"],
                                                        "%.3g" % e["max_rel_diff"]) for e in record["outputs"]], flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "interp_vs_device.json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cases": records}, f, indent=1)
    with open(os.path.join(args.out, "interp_vs_device.md"), "w") as f:
        f.write("| case | output | expectation | bit-equal elements | max rel diff | ok |\n|---|---|---|---|---|---|\n")
        for r in records:
            for e in r["outputs"]:
                f.write("| %s | %s | %s | %d / %d | %.3g | %s |\n" % (
                    r["case"], e["name"], "bit-equal" if r["expect"] == "bit" else "rel <= %g" % r["expect"],
                    e["bit_equal"], e["elements"], e["max_rel_diff"], "yes" if e["ok"] else "NO"))
    return 0 if all(r["ok"] for r in records) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=20261203)
    p.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    p.add_argument("--arch", default="sm_90a", help="the GPU's architecture (default sm_90a, the H200)")
    c = sub.add_parser("compare")
    c.add_argument("--dir", required=True)
    c.add_argument("--out", required=True)
    args = ap.parse_args()
    sys.exit(prepare(args) if args.command == "prepare" else compare(args))


if __name__ == "__main__":
    main()
