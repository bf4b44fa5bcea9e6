"""layouts_check.py: device check of the operand layouts (docs/hopper.md "wgmma", docs/language.md "Shared
layouts"): MN-major wgmma B and M-major A descriptors, column-blocked swizzled tiles (TMA into column
slices, K-major K = 128 and MN-major N = 128 descriptors, plain loads, stmatrix stores) and rank-4 TMA
tensors whose box drops its unit dims; column vectors (colsum / colmax / colargmin / colargmax, broadcast along
the rows, stores and red.add along the last index) on wgmma and mma.sync accumulators; per-row sorted top-k
lists kept in registers across tiles (arrays of row vectors, an fn insert; k = 8 and 32).  Fresh random inputs,
NaN-poisoned outputs, torch reference.

    python3 bench/layouts_check.py DIR     DIR holds layouts_wgmma.cubin, layouts_tma_rank4.cubin,
                                           layouts_columns.cubin, layouts_row_topk{,_k32}.cubin (+ .json)
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
    # ---- column vectors
    mod = cake.load(os.path.join(out, "layouts_columns.cubin"))
    f32 = dict(device="cuda", dtype=torch.float32)
    for trial in range(4):
        # Small integers: exact sums in f32, and many ties for the arg reductions.
        a = torch.randint(-3, 4, (64, 64), device="cuda").to(torch.bfloat16)
        b = torch.randint(-3, 4, (128, 64), device="cuda").to(torch.bfloat16)
        ma = torch.randint(-3, 4, (16, 16), device="cuda").to(torch.bfloat16)
        mb = torch.randint(-3, 4, (8, 16), device="cuda").to(torch.bfloat16)
        cs, cm, av, x = (torch.full(shape, float("nan"), **f32) for shape in ((4, 128), (4, 128), (4, 128), (64, 128)))
        ai = torch.full((4, 128), -7, device="cuda", dtype=torch.int32)
        g = torch.zeros(128, **f32)   # red.add accumulates into it
        mo, mv = torch.full((16, 8), float("nan"), **f32), torch.full((8,), float("nan"), **f32)
        mi = torch.full((8,), -7, device="cuda", dtype=torch.int32)
        mod(a, b, cs, cm, av, ai, x, g, ma, mb, mo, mv, mi)
        torch.cuda.synchronize()
        d = (a.double() @ b.double().t()).cpu()
        bands = d.view(4, 16, 128)
        ref_min, ref_arg = bands.min(dim=1)   # first occurrence on ties
        ref_arg = ref_arg + 16 * torch.arange(4).view(4, 1)
        ref_max = bands.max(dim=1).values
        report("colsum per warp band (%d)" % trial, torch.equal(cs.cpu().double(), bands.sum(dim=1)))
        report("colmax per warp band (%d)" % trial, torch.equal(cm.cpu().double(), ref_max))
        report("colargmin value + row, ties (%d)" % trial,
               torch.equal(av.cpu().double(), ref_min) and torch.equal(ai.cpu().long(), ref_arg))
        report("column vector broadcast (%d)" % trial,
               torch.equal(x.cpu().double(), d - ref_max.repeat_interleave(16, dim=0)))
        report("red.add of column vectors (%d)" % trial, torch.equal(g.cpu().double(), d.sum(dim=0)))
        c = (ma.double() @ mb.double().t()).cpu()
        mref, iref = c.max(dim=0)
        sums = c.sum(dim=0)
        good = sums.abs() > 0.5
        mo_ref = c / sums
        report("mma_c colargmax value + row (%d)" % trial, torch.equal(mv.cpu().double(), mref) and torch.equal(mi.cpu().long(), iref))
        err = (mo.cpu().double()[:, good] - mo_ref[:, good]).abs().max().item() if good.any() else 0.0
        report("mma_c broadcast of rcp(colsum) (%d)" % trial, err < 1e-4 and not mo[:, good.cuda()].isnan().any().item(),
               "max err %.1e" % err)
    # ---- per-row top-k lists
    for name, kk in (("layouts_row_topk", 8), ("layouts_row_topk_k32", 32)):
        mod = cake.load(os.path.join(out, name + ".cubin"))
        for trial in range(3):
            a = torch.randn(64, 64, **bf)
            b = torch.randn(256, 64, **bf)
            if trial == 2:   # duplicate columns: equal scores, the smaller column first
                b[128:] = b[:128]
            tv = torch.full((64, kk), float("nan"), **f32)
            ti = torch.full((64, kk), -7, device="cuda", dtype=torch.int32)
            mod(a, b, tv, ti)
            torch.cuda.synchronize()
            sc = (a.float() @ b.float().t()).cpu()
            # reference order: score, then column (a stable sort of the columns by score)
            order = torch.sort(sc, dim=1, stable=True)
            rv, ri = order.values[:, :kk], order.indices[:, :kk]
            got_v, got_i = tv.cpu(), ti.cpu().long()
            # the kernel's scores are the wgmma's f32 sums; compare values loosely and the columns exactly where
            # the reference's scores are not near-ties
            verr = (got_v - rv).abs().max().item()
            picked = sc.gather(1, got_i.clamp(0, 255))
            same = torch.equal(got_i, ri) or (picked - rv).abs().max().item() < 1e-3
            ties_ok = True
            if trial == 2:   # column c and c + 128 score the same: c must come first, right before c + 128
                for r in range(64):
                    pos = {int(c): p for p, c in enumerate(got_i[r].tolist())}
                    for c, p in pos.items():
                        if c >= 128 and (pos.get(c - 128) is None or pos[c - 128] != p - 1):
                            ties_ok = False
            report("row top-%d in registers (%d)" % (kk, trial),
                   verr < 1e-3 and same and ties_ok and (got_i >= 0).all().item(), "max err %.1e" % verr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
