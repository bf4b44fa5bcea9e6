"""hopper_small.py: one small, ragged launch of each Hopper sample, checked against torch - meant to run under
`compute-sanitizer --tool memcheck` (the full bench is too slow there).  Usage (on the GPU machine):

    compute-sanitizer --tool memcheck python3 bench/hopper_small.py [bench/out]

Prints one line per launch (relative error vs float32 torch) and exits 1 if one is wrong."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))


def check_gemm_bt(torch, mod, label, m, n, k):
    """One launch of a Hopper GEMM module (C[m, n] = A[m, k] B[n, k]^T, bf16) on fresh random inputs with a
    NaN-poisoned output; prints the relative error vs float32 torch; True when within 1e-2 and no NaN."""
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    mod(a, b, c)
    torch.cuda.synchronize()
    ref = a.float() @ b.float().t()
    err = ((c.float() - ref).norm() / ref.norm()).item()
    good = err <= 1e-2 and not torch.isnan(c.float()).any().item()
    print("%s%dx%dx%d: rel err %.2e %s" % (label, m, n, k, err, "ok" if good else "WRONG"), flush=True)
    return good


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "bench", "out")
    os.environ.setdefault("CAKE_RUNTIME_LIB", os.path.join(out, "libcake_runtime.so"))
    import torch
    import cake
    torch.manual_seed(1)
    ok = True
    gemms = [("hopper_gemm", 256, 512, 128), ("hopper_gemm_persistent", 200, 264, 72),
             ("hopper_gemm_persistent", 520, 776, 200)]
    for name, m, n, k in gemms:
        path = os.path.join(out, "sm_90a", name + ".cubin")
        if not os.path.exists(path):
            print("%s: no cubin" % name)
            ok = False
            continue
        ok = check_gemm_bt(torch, cake.load(path), name + " ", m, n, k) and ok
    path = os.path.join(out, "sm_90", "tma_copy.cubin")
    if os.path.exists(path):
        mod = cake.load(path)
        x = torch.randn(256, 128, device="cuda", dtype=torch.bfloat16)
        y = torch.full_like(x, float("nan"))
        mod(x, y)
        torch.cuda.synchronize()
        good = torch.equal(x, y)
        ok = ok and good
        print("tma_copy 256x128: %s" % ("ok" if good else "WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
