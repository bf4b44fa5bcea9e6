#!/usr/bin/env python3
"""GPU correctness check of cakec's cubins for the SIMT/Ampere samples (run on a machine with a GPU).

Usage: gpu_check.py DIR   where DIR holds <sample>.cubin and <sample>.cubin.json made by
       `cakec samples/<sample>.cake -o DIR/<sample>.cubin`.
Each kernel is launched through the CUDA driver API (ctypes, no build step) with the argument order the
manifest's "abi" list gives, on random inputs; the result is compared with a torch reference.  Prints one
line per check and a final 'N passed, N failed' line; exits non-zero on any failure.
This is a codegen developer check; the project's benchmark harness lives in bench/.
"""
import ctypes, json, math, os, sys, time
import torch

cuda = ctypes.CDLL("libcuda.so.1")


def check(rc, what):
    if rc != 0:
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(rc, ctypes.byref(name))
        raise RuntimeError(f"{what} failed: {name.value.decode() if name.value else rc}")


class Kernel:
    def __init__(self, folder, sample):
        with open(os.path.join(folder, sample + ".cubin"), "rb") as f:
            self.image = f.read()
        with open(os.path.join(folder, sample + ".cubin.json")) as f:
            self.manifest = json.load(f)
        self.spec = self.manifest["kernels"][0]
        self.ct = self.spec.get("ct_params", {})
        torch.zeros(1, device="cuda")  # make torch's primary context current
        self.module = ctypes.c_void_p()
        check(cuda.cuModuleLoadData(ctypes.byref(self.module), self.image), "cuModuleLoadData")
        self.func = ctypes.c_void_p()
        check(cuda.cuModuleGetFunction(ctypes.byref(self.func), self.module, self.spec["entry"].encode()),
              "cuModuleGetFunction")
        smem = int(self.spec["launch"]["dynamic_smem"])
        if smem > 48 * 1024:
            check(cuda.cuFuncSetAttribute(self.func, 8, smem), "cuFuncSetAttribute")  # MAX_DYNAMIC_SHARED_SIZE_BYTES
        self.smem = smem

    def launch(self, grid, args_by_name, shape_vars):
        holders = []
        for slot in self.spec["abi"]:
            if slot["kind"] == "ptr":
                name = self.spec["params"][slot["param"]]["name"]
                holders.append(ctypes.c_uint64(args_by_name[name].data_ptr()))
            elif slot["kind"] == "shape":
                holders.append(ctypes.c_int32(shape_vars[slot["var"]]))
            else:
                p = self.spec["params"][slot["param"]]
                v = args_by_name[p["name"]]
                holders.append(ctypes.c_float(v) if p["dtype"] == "f32" else ctypes.c_int32(v))
        ptrs = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        block = int(self.spec["launch"]["block"][0])
        gx, gy, gz = (list(grid) + [1, 1, 1])[:3]
        check(cuda.cuLaunchKernel(self.func, gx, gy, gz, block, 1, 1, self.smem, None, ptrs, None), "cuLaunchKernel")
        torch.cuda.synchronize()


def cdiv(a, b):
    return (a + b - 1) // b


results = []


def report(name, ok, detail):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)


def time_it(fn, iters=20):
    fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / iters


def vector_add(k):
    for n in [1, 7, 8, 1000, 4099, 1 << 20]:
        a = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty_like(a)
        k.launch([cdiv(n, 256 * 8)], {"A": a, "B": b, "C": c}, {"N": n})
        ref = (a.float() + b.float()).bfloat16()
        report(f"vector_add N={n}", torch.equal(c, ref), f"max err {(c.float() - ref.float()).abs().max().item():.3g}")


def block_reduce_sum(k):
    chunk = 256 * 4 * 4
    for n in [1, 5, 4096, 4097, 100003, 1 << 22]:
        x = torch.randn(n, device="cuda", dtype=torch.float32)
        g = cdiv(n, chunk)
        part = torch.empty(g, device="cuda", dtype=torch.float32)
        k.launch([g], {"X": x, "Partial": part}, {"N": n, "G": g})
        ref = x.view(-1)[: g * chunk].double()
        ref = torch.nn.functional.pad(x.double(), (0, g * chunk - n)).view(g, chunk).sum(1)
        err = (part.double() - ref).abs().max().item()
        report(f"block_reduce_sum N={n}", err < 1e-3 * math.sqrt(chunk), f"max err {err:.3g}")


def row_softmax(k):
    warps = k.ct.get("WARPS", 8)
    for r, c in [(1, 8), (3, 24), (37, 256), (100, 1000), (513, 4096), (77, 2056), (9, 8192)]:
        x = torch.randn(r, c, device="cuda", dtype=torch.bfloat16) * 3
        y = torch.full_like(x, float("nan"))
        k.launch([cdiv(r, warps)], {"X": x, "Y": y}, {"R": r, "C": c})
        ref = torch.softmax(x.float(), dim=1)
        err = (y.float() - ref).abs().max().item()
        report(f"row_softmax {r}x{c}", err < 1e-2, f"max err {err:.3g}")


def simt_gemm(k):
    for m, n, kk in [(128, 128, 8), (256, 384, 64), (1024, 1024, 512)]:
        a = torch.randn(m, kk, device="cuda")
        b = torch.randn(kk, n, device="cuda")
        c = torch.empty(m, n, device="cuda")
        run = lambda: k.launch([n // 128, m // 128], {"A": a, "B": b, "C": c}, {"M": m, "N": n, "K": kk})
        run()
        ref = (a.double() @ b.double()).float()
        err = (c - ref).abs().max().item()
        report(f"simt_gemm {m}x{n}x{kk}", err < 1e-3 * math.sqrt(kk), f"max err {err:.3g}")
    m = n = kk = 4096
    a = torch.randn(m, kk, device="cuda"); b = torch.randn(kk, n, device="cuda"); c = torch.empty(m, n, device="cuda")
    t = time_it(lambda: k.launch([n // 128, m // 128], {"A": a, "B": b, "C": c}, {"M": m, "N": n, "K": kk}), 5)
    print(f"INFO simt_gemm 4096^3: {t * 1e3:.2f} ms, {2 * m * n * kk / t / 1e12:.1f} TFLOP/s")


def ampere_gemm(k):
    bm, bn, bk = k.ct.get("BM", 128), k.ct.get("BN", 128), k.ct.get("BK", 32)
    for m, n, kk in [(bm, bn, bk), (2 * bm, 3 * bn, 3 * bk), (1024, 512, 1024)]:
        a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        k.launch([n // bn, m // bm], {"A": a, "B": b, "C": c}, {"M": m, "N": n, "K": kk})
        ref = (a.float() @ b.float())
        err = ((c.float() - ref).abs() / (ref.abs() + 1)).max().item()
        report(f"ampere_gemm {m}x{n}x{kk}", err < 2e-2, f"max rel err {err:.3g}")
    m = n = kk = 4096
    a = torch.randn(m, kk, device="cuda", dtype=torch.bfloat16); b = torch.randn(kk, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    t = time_it(lambda: k.launch([n // bn, m // bm], {"A": a, "B": b, "C": c}, {"M": m, "N": n, "K": kk}), 10)
    tt = time_it(lambda: a @ b, 10)
    print(f"INFO ampere_gemm 4096^3: {t * 1e3:.2f} ms ({2 * m * n * kk / t / 1e12:.0f} TFLOP/s); torch {tt * 1e3:.2f} ms")


def main():
    folder = sys.argv[1]
    for name, fn in [("vector_add", vector_add), ("block_reduce_sum", block_reduce_sum), ("row_softmax", row_softmax),
                     ("simt_gemm", simt_gemm), ("ampere_gemm", ampere_gemm)]:
        if not os.path.exists(os.path.join(folder, name + ".cubin")):
            continue
        try:
            fn(Kernel(folder, name))
        except Exception as e:  # a launch failure poisons the context: report and stop
            report(name, False, f"exception {e}")
            break
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if results and all(results) else 1)


main()
