"""layouts_check.py: device check of the operand layouts (docs/hopper.md "wgmma", docs/language.md "Shared
layouts"): MN-major wgmma B and M-major A descriptors, column-blocked swizzled tiles (TMA into column
slices, K-major K = 128 and MN-major N = 128 descriptors, plain loads, stmatrix stores) and rank-4 TMA
tensors whose box drops its unit dims.  Fresh random inputs, NaN-poisoned outputs, torch reference.

    python3 bench/layouts_check.py DIR     DIR holds layouts_wgmma.cubin, layouts_tma_rank4.cubin (+ .json)
                                           and libcake_runtime.so; the runtime module is found next to this
                                           file (runtime/python) or in DIR/python.
Prints one line per check and exits 1 if one is wrong."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "out", "layouts")
    for p in (os.path.join(out, "python"), os.path.join(os.path.dirname(HERE), "runtime", "python")):
        if os.path.isdir(p):
            sys.path.insert(0, p)
    os.environ.setdefault("CAKE_RUNTIME_LIB", os.path.join(out, "libcake_runtime.so"))
    import torch
    import cake
    torch.manual_seed(7)
    ok = True

    def report(label, good, detail=""):
        nonlocal ok
        ok = ok and good
        print("%-40s %s %s" % (label, "ok" if good else "WRONG", detail), flush=True)

    def rel(x, ref):
        return ((x.float() - ref).norm() / ref.norm()).item()

    bf = dict(device="cuda", dtype=torch.bfloat16)
    # ---- wgmma layouts
    mod = cake.load(os.path.join(out, "layouts_wgmma.cubin"))
    for trial in range(3):
        a = torch.randn(64, 64, **bf)
        v = torch.randn(64, 128, **bf)
        at = torch.randn(128, 64, **bf)
        kb = torch.randn(64, 128, **bf)
        e1 = torch.full((64, 128), float("nan"), **bf)
        e2 = torch.full((64, 128), float("nan"), **bf)
        d1 = torch.full((64, 128), float("nan"), device="cuda", dtype=torch.float32)
        d2 = torch.full((64, 64), float("nan"), device="cuda", dtype=torch.float32)
        vx = torch.full((64, 128), float("nan"), **bf)
        mod(a, v, at, kb, e1, e2, d1, d2, vx)
        torch.cuda.synchronize()
        r1 = a.float() @ v.float()
        r2 = at.float().t() @ kb.float().t()
        err1, err2 = rel(d1, r1), rel(d2, r2)
        report("wgmma MN-major B, N=128 (trial %d)" % trial, err1 < 1e-3 and not d1.isnan().any().item(), "rel err %.2e" % err1)
        report("wgmma M-major A + K=128 K-major B (%d)" % trial, err2 < 1e-3 and not d2.isnan().any().item(), "rel err %.2e" % err2)
        report("column-blocked plain loads (%d)" % trial, torch.equal(vx, v))
        err3 = rel(e1, r1)
        report("stmatrix into column blocks + TMA (%d)" % trial, err3 < 1e-2 and not e1.isnan().any().item(), "rel err %.2e" % err3)
        report("accumulator column slices + TMA (%d)" % trial, torch.equal(e2, e1) and not e2.isnan().any().item())
    # ---- rank-4 TMA
    mod = cake.load(os.path.join(out, "layouts_tma_rank4.cubin"))
    for (b, h, t) in ((2, 3, 128), (1, 5, 192)):
        q = torch.randn(b, h, t, 64, **bf)
        q2 = torch.randn(b, h, t, 128, **bf)
        o = torch.full_like(q, float("nan"))
        o2 = torch.full_like(q2, float("nan"))
        mod(q, o, q2, o2)
        torch.cuda.synchronize()
        report("rank-4 TMA roundtrip [%d,%d,%d,64]" % (b, h, t), torch.equal(o, q))
        report("rank-4 TMA column blocks [%d,%d,%d,128]" % (b, h, t), torch.equal(o2, q2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
