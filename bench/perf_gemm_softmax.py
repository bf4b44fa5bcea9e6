#!/usr/bin/env python3
"""Correctness and speed of the ampere_gemm and row_softmax variants built by bench/build_perf_variants.sh,
against torch (cuBLAS matmul, torch.softmax) - a tuning sweep for the performance work on the two samples.

Usage: perf_gemm_softmax.py CUBIN_DIR [OUT_DIR | --out OUT_DIR]      (needs a GPU and torch)
       ONLY=gemm skips the softmax variants (ONLY=softmax the GEMM ones).
Writes OUT_DIR/results.json (everything) and OUT_DIR/ampere_variants.json + ampere_variants.md (the GEMM
variants: per size TFLOP/s, cuBLAS in the same run, ratio, K-slope mainloop rate, correctness).
Each cubin is launched through the CUDA driver API (ctypes) with its manifest's ABI order, on torch's
current stream.  Correctness: fresh random inputs, output poisoned with NaN first, compared with a float32
torch reference.  Timing: the launches (ours and torch's) are captured in a CUDA graph of REPS calls and
the graph replays are timed with CUDA events; the median of TRIALS replays / REPS is reported, so neither
Python nor launch overhead is in the numbers.  Prints one line per measurement and a summary table last;
writes results.json to OUT_DIR."""
import ctypes, json, os, statistics, sys
import torch

cuda = ctypes.CDLL("libcuda.so.1")


def check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what} failed: CUresult {rc}")


class Kernel:
    def __init__(self, path, entry):
        with open(path, "rb") as f:
            image = f.read()
        with open(path + ".json") as f:
            manifest = json.load(f)
        self.spec = next(k for k in manifest["kernels"] if k["entry"] == entry)
        torch.zeros(1, device="cuda")
        self.module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), image), "cuModuleLoadData")
        self.func = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.func), self.module, entry.encode()), "cuModuleGetFunction")
        self.smem = int(self.spec["launch"]["dynamic_smem"])
        if self.smem > 48 * 1024:
            check(cuda.cuFuncSetAttribute(self.func, 8, self.smem), "cuFuncSetAttribute")
        self.block = int(self.spec["launch"]["block"][0])

    def launcher(self, grid, tensors, shape_vars):
        holders = []
        for slot in self.spec["abi"]:
            if slot["kind"] == "ptr":
                holders.append(ctypes.c_uint64(tensors[self.spec["params"][slot["param"]]["name"]].data_ptr()))
            elif slot["kind"] == "shape":
                holders.append(ctypes.c_int32(shape_vars[slot["var"]]))
            else:
                raise RuntimeError("scalar parameters not used here")
        ptrs = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        gx, gy, gz = (list(grid) + [1, 1, 1])[:3]

        def launch():
            stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
            check(cuda.cuLaunchKernel(self.func, gx, gy, gz, self.block, 1, 1, self.smem, stream, ptrs, None),
                  "cuLaunchKernel")
        launch.keep = (holders, ptrs)
        return launch


def graph_time(fn, reps, trials=7):
    """Median seconds per call of fn, from CUDA-graph replays of `reps` calls."""
    fn(); torch.cuda.synchronize()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    g.replay(); torch.cuda.synchronize()
    times = []
    for _ in range(trials):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); b.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / reps)
    return statistics.median(times)


def cdiv(a, b):
    return (a + b - 1) // b


results = {"gemm": [], "softmax": [], "failures": []}


def gemm_variant(folder, v, peer_cache):
    k = Kernel(os.path.join(folder, v["name"] + ".cubin"), "ampere_gemm")
    ct = k.spec["ct_params"]      # the tile sizes the cubin was built with (after -D)
    bm, bn, bk = ct["BM"], ct["BN"], ct["BK"]
    grp = ct.get("G", 0)          # grouped variants: grid(G, N / BN, M / (BM * G))
    grid = (lambda m, n: [grp, n // bn, m // (bm * grp)]) if grp else (lambda m, n: [n // bn, m // bm])
    ok = True
    mg = bm * max(grp, 1)
    for m, n, kk in [(mg, bn, bk), (mg * (3 if not grp else 1), 5 * bn, 7 * bk), (2048, 2048, 1024)]:
        a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        k.launcher(grid(m, n), {"A": a, "B": b, "C": c}, {"M": m, "N": n, "K": kk})()
        torch.cuda.synchronize()
        ref = a.float() @ b.float()
        rel = ((c.float() - ref).norm() / ref.norm()).item()
        good = rel < 1e-2 and not torch.isnan(c).any().item()
        ok = ok and good
        print(f"{'PASS' if good else 'FAIL'} gemm {v['name']} {m}x{n}x{kk}: rel err {rel:.2e}", flush=True)
    if not ok:
        results["failures"].append(v["name"])
        return
    # mainloop rate from the K slope (4096 x 4096 x 8192 minus 4096^3: prologue/epilogue cancel)
    a = torch.randn(4096, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(4096, 4096, device="cuda", dtype=torch.bfloat16)
    t_k2 = graph_time(k.launcher(grid(4096, 4096), {"A": a, "B": b, "C": c}, {"M": 4096, "N": 4096, "K": 8192}), 10)
    del a, b, c
    for s in (4096, 8192):
        a = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(s, s, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(s, s, device="cuda", dtype=torch.bfloat16)
        fn = k.launcher(grid(s, s), {"A": a, "B": b, "C": c}, {"M": s, "N": s, "K": s})
        reps = 20 if s == 4096 else 5
        t = graph_time(fn, reps)
        if s not in peer_cache:
            peer_cache[s] = graph_time(lambda: torch.matmul(a, b), reps)
        tp = peer_cache[s]
        ref = a.float() @ b.float()
        rel = ((c.float() - ref).norm() / ref.norm()).item()
        fl = 2 * s ** 3
        rec = {"name": v["name"], "defines": v["defines"], "size": s, "ms": t * 1e3, "tflops": fl / t / 1e12,
               "torch_ms": tp * 1e3, "torch_tflops": fl / tp / 1e12, "ratio": tp / t, "rel_err": rel}
        if s == 4096:
            rec["mainloop_tflops"] = 2 * 4096 * 4096 * 4096 / (t_k2 - t) / 1e12
            rec["fixed_us"] = (2 * t - t_k2) * 1e6      # time not proportional to K (prologue, epilogue, tail)
            print(f"INFO gemm {v['name']} K-slope: mainloop {rec['mainloop_tflops']:.0f} TFLOP/s, "
                  f"K-independent part {rec['fixed_us']:.1f} us", flush=True)
        results["gemm"].append(rec)
        print(f"INFO gemm {v['name']} {s}^3: {t*1e3:.3f} ms {fl/t/1e12:.0f} TFLOP/s | cuBLAS {tp*1e3:.3f} ms "
              f"{fl/tp/1e12:.0f} TFLOP/s | ratio {tp/t:.2f} | rel err {rel:.1e}", flush=True)
        del a, b, c, ref


SOFTMAX_SHAPES = [(r, c) for r in (4096, 16384, 65536) for c in (1024, 2048, 4096, 8192)]


def softmax_variant(folder, v, peer_cache):
    cap = v["warps"] * 32 * v["vpt"] * 8
    for entry, dt in (("row_softmax", torch.bfloat16), ("row_softmax_f16", torch.float16)):
        k = Kernel(os.path.join(folder, v["name"] + ".cubin"), entry)
        # correctness on odd shapes, one per row-width regime
        ok = True
        for r, c in [(1, 8), (37, 1000), (1007, 1032), (129, min(cap, 8192) - 8), (5, min(cap, 4096)), (300, 2056)]:
            if c > cap:
                continue
            x = torch.randn(r, c, device="cuda", dtype=dt) * 3
            y = torch.full_like(x, float("nan"))
            k.launcher([cdiv(r, v["warps"])], {"X": x, "Y": y}, {"R": r, "C": c})()
            torch.cuda.synchronize()
            ref = torch.softmax(x.float(), dim=1)
            err = (y.float() - ref).abs().max().item()
            good = err < 1e-2 and not torch.isnan(y).any().item()
            ok = ok and good
            if not good:
                print(f"FAIL softmax {v['name']} {entry} {r}x{c}: max err {err:.2e}", flush=True)
        print(f"{'PASS' if ok else 'FAIL'} softmax {v['name']} {entry} correctness", flush=True)
        if not ok:
            results["failures"].append(v["name"] + "/" + entry)
            continue
        for r, c in SOFTMAX_SHAPES:
            if c > cap:
                continue
            x = torch.randn(r, c, device="cuda", dtype=dt) * 3
            y = torch.empty_like(x)
            fn = k.launcher([cdiv(r, v["warps"])], {"X": x, "Y": y}, {"R": r, "C": c})
            nbytes = 2 * r * c * 2
            reps = max(3, min(200, int(2e9 / nbytes)))
            t = graph_time(fn, reps)
            key = (r, c, str(dt))
            if key not in peer_cache:
                peer_cache[key] = graph_time(lambda: torch.softmax(x, dim=1), reps)
            tp = peer_cache[key]
            ref = torch.softmax(x.float(), dim=1)
            err = (y.float() - ref).abs().max().item()
            rec = {"name": v["name"], "dtype": str(dt).split(".")[-1], "R": r, "C": c, "us": t * 1e6,
                   "torch_us": tp * 1e6, "gbps": nbytes / t / 1e9, "torch_gbps": nbytes / tp / 1e9,
                   "speedup": tp / t, "max_err": err}
            results["softmax"].append(rec)
            print(f"INFO softmax {v['name']} {rec['dtype']} {r}x{c}: {t*1e6:.1f} us {nbytes/t/1e9:.0f} GB/s | "
                  f"torch {tp*1e6:.1f} us {nbytes/tp/1e9:.0f} GB/s | speedup {tp/t:.2f} | err {err:.1e}", flush=True)
            del x, y, ref


def write_gemm_report(out, folder):
    """ampere_variants.json (records, failures, the variant list) and ampere_variants.md (a table)."""
    device = torch.cuda.get_device_name()
    with open(os.path.join(folder, "variants.json")) as f:
        listed = json.load(f)["gemm"]
    gemm_failures = [n for n in results["failures"] if "/" not in n and not n.startswith("s_")]
    with open(os.path.join(out, "ampere_variants.json"), "w") as f:
        json.dump({"device": device, "variants": listed, "records": results["gemm"], "failures": gemm_failures}, f,
                  indent=1)
    by = {}
    for r in results["gemm"]:
        by.setdefault(r["name"], {})[r["size"]] = r
    order = sorted(by, key=lambda n: -by[n].get(4096, {}).get("ratio", 0))
    lines = [f"# ampere_gemm variants on {device}", "",
             "TFLOP/s = 2 s^3 / time; cuBLAS = torch.matmul bf16 in the same run; mainloop = K-slope rate "
             "(4096x4096x8192 minus 4096^3); fixed = the K-independent time at 4096^3.", "",
             "| variant | defines | 4096^3 TFLOP/s | cuBLAS | ratio | mainloop | fixed us | 8192^3 TFLOP/s | cuBLAS | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n in order:
        a, b = by[n].get(4096), by[n].get(8192)
        d = (a or b)["defines"]
        ca = (f"{a['tflops']:.0f} | {a['torch_tflops']:.0f} | {a['ratio']:.3f} | {a['mainloop_tflops']:.0f} | "
              f"{a['fixed_us']:.1f}") if a else "- | - | - | - | -"
        cb = f"{b['tflops']:.0f} | {b['torch_tflops']:.0f} | {b['ratio']:.3f}" if b else "- | - | -"
        lines.append(f"| {n} | {d} | {ca} | {cb} |")
    lines += ["", f"failures: {', '.join(gemm_failures) if gemm_failures else 'none'}", ""]
    with open(os.path.join(out, "ampere_variants.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines), flush=True)


def main():
    args = [a for a in sys.argv[1:]]
    out = "."
    if "--out" in args:
        i = args.index("--out")
        out = args[i + 1]
        del args[i:i + 2]
    folder = args[0]
    if len(args) > 1:
        out = args[1]
    os.makedirs(out, exist_ok=True)
    only = os.environ.get("ONLY", "")
    with open(os.path.join(folder, "variants.json")) as f:
        variants = json.load(f)
    print("device:", torch.cuda.get_device_name(), flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    peer = {}
    if only in ("", "gemm"):
        for v in variants["gemm"]:
            try:
                gemm_variant(folder, v, peer)
            except Exception as e:
                print(f"FAIL gemm {v['name']}: {e}", flush=True)
                results["failures"].append(v["name"])
    peer = {}
    if only in ("", "softmax"):
        keep = os.environ.get("SOFTMAX_VARIANTS", "")
        for v in variants["softmax"]:
            if keep and v["name"] not in keep.split(","):
                continue
            try:
                softmax_variant(folder, v, peer)
            except Exception as e:
                print(f"FAIL softmax {v['name']}: {e}", flush=True)
                results["failures"].append(v["name"])
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    if only in ("", "gemm"):
        write_gemm_report(out, folder)
    # summary: best variant per GEMM size and per softmax shape/dtype
    print("\n=== GEMM (best variant per size) ===")
    for s in (4096, 8192):
        recs = [r for r in results["gemm"] if r["size"] == s]
        for r in sorted(recs, key=lambda r: -r["tflops"])[:3]:
            print(f"{s}^3 {r['name']:22s} {r['tflops']:6.0f} TFLOP/s  cuBLAS {r['torch_tflops']:5.0f}  ratio {r['ratio']:.2f}")
    print("=== softmax (best variant per shape) ===")
    for dt in ("bfloat16", "float16"):
        for r, c in SOFTMAX_SHAPES:
            recs = [x for x in results["softmax"] if x["dtype"] == dt and x["R"] == r and x["C"] == c]
            if not recs:
                continue
            b = max(recs, key=lambda x: x["speedup"])
            d = next((x for x in recs if x["name"] == "s_w8_v4"), None)
            dtxt = f" default {d['us']:.1f}us x{d['speedup']:.2f}" if d else ""
            print(f"{dt:8s} {r:6d}x{c:5d} best {b['name']:9s} {b['us']:8.1f} us ({b['gbps']:5.0f} GB/s) torch "
                  f"{b['torch_us']:8.1f} us ({b['torch_gbps']:5.0f} GB/s) x{b['speedup']:.2f}{dtxt}")
    print("failures:", results["failures"])


main()
