#!/usr/bin/env python3
"""Kimi Delta Attention forward on the GPU (the H200 the issue names, or whatever card the run gets: the
report's title names it): FlashKDA (MoonshotAI, CUTLASS), fla's chunk_kda (Triton) and the
CAKE kernels (kernels/kda/, when built) in one process, each checked against the float64 token recurrence
(runtime/python/cakeir/kda/reference.py, run on the GPU in float64).

    bash bench/kda_build_flashkda.sh PEERS_DIR          # GPU machine: builds PEERS_DIR/FlashKDA in place
    python3 bench/kda_bench.py --peers PEERS_DIR --out DIR [--cases NAME,...] [--skip-timing]

PEERS_DIR holds FlashKDA/ (its source with cutlass/, built by kda_build_flashkda.sh) and fla/ (the source tree
of flash-linear-attention: PEERS_DIR/fla/fla is the package); neither is part of this repository.

Problem (the chunk_kda contract, FlashKDA's bench configuration): q, k, v, g_raw bf16 [1, T, H, 128],
beta_raw bf16 [1, T, H], A_log fp32 [H], dt_bias fp32 [H, 128], lower_bound = -5 (the safe gate),
scale = 128^-0.5, in-kernel q/k L2 norm, beta sigmoid and gate; initial state fp32 [N, H, V, K] (V-first, the
layout FlashKDA reads), final state fp32 [N, H, V, K].  Cases: H in {96, 64} x {fixed T = 8192, varlen
[1300, 547, 2048, 963, 271, 3063], varlen 1024 x 8} (FlashKDA's six) and B x T x H = 1 x 8192 x 16,
8 x 2048 x 16, 1 x 32768 x 32.

Per case: fresh seeded inputs (the seed is recorded), a random initial state; the float64 recurrence once;
every implementation writes into freshly allocated NaN-poisoned outputs, its inputs are compared bit for bit
with copies afterwards, and its relative errors ||x - ref|| / ||ref|| of o and of the final state are
recorded (fla's error is the yardstick).  Timing: bench/fragment_samples_common.py's time_interleaved (same
process, rounds in rotating order, L2 flushed before every timed run, persisting L2 off, median of all
samples); fla runs with FLA_FLASH_KDA=0 and grad mode on, so it never dispatches to FlashKDA.
Exit: 0 when every implementation that ran was correct (rel. error <= --tol), 1 otherwise."""

import argparse
import math
import os
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
os.environ["FLA_FLASH_KDA"] = "0"          # fla must not hand its call to FlashKDA

D = 128
LOWER_BOUND = -5.0
SIX = [("fixed", [8192]), ("varlen6", [1300, 547, 2048, 963, 271, 3063]), ("varlen1024x8", [1024] * 8)]


class Case:
    def __init__(self, name, H, seq_lens=None, B=1, T=None):
        self.name, self.H = name, H
        self.B = B
        self.seq_lens = seq_lens            # varlen (B == 1) when more than one
        self.T = T if T is not None else sum(seq_lens)
        self.varlen = seq_lens is not None and len(seq_lens) > 1
        self.N = len(seq_lens) if self.varlen else B
        self.six = False

    @property
    def label(self):
        return "%s H=%d" % (self.name, self.H)

    @property
    def flops(self):
        # dense-equivalent chunked work at BT = 64 (shared/reference/kda.md): 2 BT^2 (3K + 2V) + 6 BT K V per chunk
        tokens = self.B * self.T
        return tokens * self.H * (2 * 64 * (3 * D + 2 * D) + 6 * D * D)

    @property
    def nbytes(self):
        tokens = self.B * self.T
        return tokens * self.H * (5 * D * 2 + 2) + 2 * self.N * self.H * D * D * 4


def all_cases():
    cases = []
    for H in (96, 64):
        for name, lens in SIX:
            c = Case(name, H, seq_lens=lens)
            c.six = True
            cases.append(c)
    cases.append(Case("1x8192", 16, B=1, T=8192))
    cases.append(Case("8x2048", 16, B=8, T=2048))
    cases.append(Case("1x32768", 32, B=1, T=32768))
    return cases


def make_case_inputs(torch, case, seed):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)
    dev = "cuda"
    B, T, H, N = case.B, case.T, case.H, case.N
    r = lambda *s: torch.randn(*s, generator=gen, device=dev, dtype=torch.float32)  # noqa: E731
    x = {"q": r(B, T, H, D).bfloat16(), "k": r(B, T, H, D).bfloat16(), "v": r(B, T, H, D).bfloat16(),
         "g": r(B, T, H, D).bfloat16(), "beta": r(B, T, H).bfloat16(),
         "A_log": torch.rand(H, generator=gen, device=dev), "dt_bias": torch.rand(H, D, generator=gen, device=dev),
         "h0": r(N, H, D, D)}                                          # V-first [N, H, V, K]
    if case.varlen:
        cu = [0]
        for n in case.seq_lens:
            cu.append(cu[-1] + n)
        x["cu_seqlens"] = torch.tensor(cu, dtype=torch.long, device=dev)
    return x


def reference(torch, ref, x):
    return ref.kda_forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                           lower_bound=LOWER_BOUND, scale=D ** -0.5, initial_state=x["h0"],
                           cu_seqlens=x.get("cu_seqlens"), state_v_first=True, method="recurrent")


# ------------------------------------------------------------------------------------------- implementations
# the chunked CAKE forwards: bench name -> (forward_chunked's prep, the scan's warpgroups per block, title);
# bench/kda_check.py runs the same paths (its labels: the names with "cake_chunked" shortened to "cake")
CAKE_CHUNKED = {
    "cake_chunked_tc3_auto": ("cake_tc3", "auto", "tf32 L / P prep, scan warpgroups by shape"),
    "cake_chunked_tc3_wg2": ("cake_tc3", 2, "tf32 L / P prep, 2-wg scan"),
    "cake_chunked_tc3": ("cake_tc3", 1, "tf32 L / P prep"),
    "cake_chunked_tc2_wg2": ("cake_tc2", 2, "tc2 prep, 2-wg scan"),
    "cake_chunked_tc2": ("cake_tc2", 1, "tc2 prep"),
    "cake_chunked_tc": ("cake_tc", 1, "tc prep"),
    "cake_chunked": ("cake", 1, "SIMT prep"),
}

def flashkda_impl(torch, flash_kda, x):
    out = torch.full_like(x["v"], float("nan"))
    final = torch.full_like(x["h0"], float("nan"))
    extra = {"cu_seqlens": x["cu_seqlens"]} if "cu_seqlens" in x else {}

    def fn():
        flash_kda.fwd(x["q"], x["k"], x["v"], x["g"], x["beta"], D ** -0.5, out, x["A_log"], x["dt_bias"],
                      LOWER_BOUND, initial_state=x["h0"], final_state=final, **extra)
        return out, final
    return fn


def fla_impl(torch, chunk_kda, x, safe_gate):
    extra = {"cu_seqlens": x["cu_seqlens"]} if "cu_seqlens" in x else {}

    def fn():
        return chunk_kda(q=x["q"], k=x["k"], v=x["v"], g=x["g"], beta=x["beta"], scale=D ** -0.5,
                         initial_state=x["h0"], output_final_state=True, use_gate_in_kernel=True,
                         use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True, A_log=x["A_log"],
                         dt_bias=x["dt_bias"].reshape(-1), lower_bound=LOWER_BOUND, safe_gate=safe_gate,
                         state_v_first=True, **extra)
    return fn


def cake_impl(torch, cake_kda, x):
    if cake_kda is None:
        return None
    return cake_kda.make_forward(x, lower_bound=LOWER_BOUND, scale=D ** -0.5)


def cake_chunked_impl(torch, cake_kda, x, prep="cake", scan_wg=1):
    """The chunked CAKE forward: kernel 1 as forward_chunked's prep names it + kernels/kda/chunk_scan.cake (its
    build with scan_wg warpgroups per block).  The chunk layout
    (chunk offsets and the padded-row map, a function of cu_seqlens only) is computed once, as fla caches its
    chunk indices per cu_seqlens."""
    from cakeir.kda import kernels as kk
    B, T, H, _ = x["q"].shape
    TT = B * T
    varlen = "cu_seqlens" in x
    cu = x["cu_seqlens"] if varlen else torch.arange(0, (B + 1) * T, T, dtype=torch.int64, device="cuda")
    layout = kk.chunk_layout(cu, TT)
    o = torch.full((TT, H, D), float("nan"), dtype=torch.bfloat16, device="cuda")
    ht = torch.full_like(x["h0"], float("nan"))
    args = (x["q"].reshape(TT, H, D), x["k"].reshape(TT, H, D), x["v"].reshape(TT, H, D), x["g"].reshape(TT, H, D),
            x["beta"].reshape(TT, H), x["A_log"], x["dt_bias"], LOWER_BOUND, D ** -0.5, cu)

    def fn():
        work = kk.prepare_chunks_cake(cake_kda, *args, layout=layout, kernel=kk.PREP_KERNELS[prep])
        kk.scan_chunks(cake_kda, work, (TT, H, D), cu, varlen=varlen, initial_state=x["h0"], final_state=ht,
                       state_v_first=True, out=o, wg=scan_wg)
        return o.view(B, T, H, D), ht
    return fn


def cake_scan_impl(torch, cake_kda, x, wg=1):
    """kernels/kda/chunk_scan.cake alone: its inputs (kernel 1's outputs) are prepared once here by the torch
    scaffold (cakeir.kda.kernels.prepare_chunks) and not timed; the callable runs the scan only, so its time is
    the sequential half of a chunked CAKE forward, not a whole forward."""
    from cakeir.kda import kernels as kk
    B, T, H, _ = x["q"].shape
    TT = B * T
    varlen = "cu_seqlens" in x
    cu = x["cu_seqlens"] if varlen else torch.arange(0, (B + 1) * T, T, dtype=torch.int64, device="cuda")
    prep = kk.prepare_chunks(x["q"].reshape(TT, H, D), x["k"].reshape(TT, H, D), x["v"].reshape(TT, H, D),
                             x["g"].reshape(TT, H, D), x["beta"].reshape(TT, H), x["A_log"], x["dt_bias"],
                             LOWER_BOUND, D ** -0.5, cu)
    o = torch.full((TT, H, D), float("nan"), dtype=torch.bfloat16, device="cuda")
    ht = torch.full_like(x["h0"], float("nan"))

    def fn():
        kk.scan_chunks(cake_kda, prep, (TT, H, D), cu, varlen=varlen, initial_state=x["h0"], final_state=ht,
                       state_v_first=True, out=o, wg=wg)
        return o.view(B, T, H, D), ht
    return fn


# ------------------------------------------------------------------------------------------- the run
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers", required=True, help="folder with FlashKDA/ (built) and fla/")
    ap.add_argument("--out", required=True)
    ap.add_argument("--cases", default="", help="comma-separated case labels' names (default: all)")
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--tol", type=float, default=2e-2, help="relative error bound for o and the final state")
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--cake", default="", help="folder of the CAKE kda cubins (cakeir.kda.kernels)")
    ap.add_argument("--budget", type=float, default=400.0, help="seconds; later cases are skipped past it")
    ap.add_argument("--impls", default=",".join(list(CAKE_CHUNKED) + ["cake", "cake_scan_wg2", "cake_scan", "flashkda",
                                                                       "fla", "fla_safe"]),
                    help="which implementations to run (fla_safe: chunk_kda with safe_gate=True)")
    ap.add_argument("--only-cake", default=None,
                    help="comma-separated CAKE paths allowed to run (bench/kda_device_run.sh passes those that "
                         "bench/kda_check.py found correct; 'none': no CAKE path)")
    args = ap.parse_args()

    import torch
    import fragment_samples_common as common
    from cakeir.kda import reference as ref

    sys.path.insert(0, os.path.join(args.peers, "FlashKDA"))
    sys.path.insert(0, os.path.join(args.peers, "fla"))
    impl_errors = {}
    try:
        import flash_kda
    except Exception as error:  # noqa: BLE001
        flash_kda = None
        impl_errors["flashkda"] = "%s: %s" % (type(error).__name__, error)
    try:
        from fla.ops.kda import chunk_kda
    except Exception as error:  # noqa: BLE001
        chunk_kda = None
        impl_errors["fla"] = "%s: %s" % (type(error).__name__, error)
    cake_kda = None
    if args.cake:
        try:
            from cakeir.kda import kernels as cake_kernels
            cake_kda = cake_kernels.Kernels(args.cake)
        except Exception as error:  # noqa: BLE001
            impl_errors["cake"] = "%s: %s" % (type(error).__name__, error)
    print("import errors:", impl_errors, flush=True)

    document = {"meta": common.meta(torch, args, {"seed": args.seed, "tol": args.tol,
                                                   "import_errors": impl_errors}), "cases": []}
    flusher = common.L2Flusher(torch)
    wanted = [s for s in args.cases.split(",") if s]
    cases = [c for c in all_cases() if not wanted or c.label.replace(" ", "_") in wanted or c.name in wanted]
    deadline = time.time() + args.budget
    all_ok = True
    for i, case in enumerate(cases):
        if time.time() > deadline:
            document["cases"].append({"case": case.label, "status": "skipped (budget)"})
            continue
        record = {"case": case.label, "B": case.B, "T": case.T, "H": case.H, "N": case.N,
                  "seq_lens": case.seq_lens, "six": case.six, "seed": args.seed + i}
        try:
            x = make_case_inputs(torch, case, args.seed + i)
            t0 = time.time()
            o_ref, s_ref = reference(torch, ref, x)
            record["reference_s"] = time.time() - t0
            fns = {}
            impls = args.impls.split(",")
            if args.only_cake is not None:
                allowed = set(args.only_cake.split(","))
                impls = [n for n in impls if not n.startswith("cake") or n in allowed]
            if cake_kda is not None and "cake" in impls:
                fns["cake"] = cake_impl(torch, cake_kda, x)
            for name, (prep, scan_wg, _title) in CAKE_CHUNKED.items():
                if cake_kda is not None and name in impls:
                    fns[name] = cake_chunked_impl(torch, cake_kda, x, prep=prep, scan_wg=scan_wg)
            if cake_kda is not None and "cake_scan" in impls:
                fns["cake_scan"] = cake_scan_impl(torch, cake_kda, x)
            if cake_kda is not None and "cake_scan_wg2" in impls:
                fns["cake_scan_wg2"] = cake_scan_impl(torch, cake_kda, x, wg=2)
            if flash_kda is not None and "flashkda" in impls:
                fns["flashkda"] = flashkda_impl(torch, flash_kda, x)
            if chunk_kda is not None and "fla" in impls:
                fns["fla"] = fla_impl(torch, chunk_kda, x, safe_gate=False)
            if chunk_kda is not None and "fla_safe" in impls:
                fns["fla_safe"] = fla_impl(torch, chunk_kda, x, safe_gate=True)
            checks = {}
            record["first_call_s"] = {}
            for name, fn in fns.items():
                guard = common.InputGuard({k: v for k, v in x.items()})
                try:
                    t0 = time.time()
                    o, s = fn()
                    torch.cuda.synchronize()
                    record["first_call_s"][name] = time.time() - t0    # includes JIT compilation / autotuning
                    checks[name] = {"o_rel_err": ref.rel_error(o, o_ref), "state_rel_err": ref.rel_error(s, s_ref),
                                    "o_nan": int(torch.isnan(o).sum()), "state_nan": int(torch.isnan(s).sum()),
                                    "inputs_changed": guard.changed()}
                    ck = checks[name]
                    ck["ok"] = (ck["o_rel_err"] <= args.tol and ck["state_rel_err"] <= args.tol and
                                ck["o_nan"] == 0 and ck["state_nan"] == 0 and not ck["inputs_changed"])
                except Exception as error:  # noqa: BLE001
                    checks[name] = {"ok": False, "error": "%s: %s" % (type(error).__name__, error),
                                    "traceback": traceback.format_exc(limit=4)}
                all_ok &= checks[name]["ok"]
            record["checks"] = checks
            del o_ref, s_ref
            torch.cuda.empty_cache()
            if not args.skip_timing:
                good = {n: f for n, f in fns.items() if checks[n]["ok"]}
                t0 = time.time()
                timing = common.time_interleaved(torch, good, flusher)
                record["timing_s"] = time.time() - t0
                for n, t in timing.items():
                    common.add_rates(t, case.flops, case.nbytes)
                record["timing"] = timing
            record["status"] = "ok"
        except Exception as error:  # noqa: BLE001
            record["status"] = "error"
            record["error"] = "%s: %s" % (type(error).__name__, error)
            record["traceback"] = traceback.format_exc(limit=6)
            all_ok = False
        document["cases"].append(record)
        print(case.label, record["status"], {n: "o %.2e s %.2e%s" % (c.get("o_rel_err", math.nan),
                                                                    c.get("state_rel_err", math.nan),
                                                                    "" if c["ok"] else " FAIL")
                                              for n, c in record.get("checks", {}).items()},
              {n: "%.4f ms" % t["ms"] for n, t in record.get("timing", {}).items()},
              "phases: reference %.1f s, first calls %s, timing %.1f s" % (
                  record.get("reference_s", math.nan),
                  {n: round(v, 1) for n, v in record.get("first_call_s", {}).items()},
                  record.get("timing_s", math.nan)), flush=True)
        torch.cuda.empty_cache()
        common.write(args.out, "kda", document, markdown(document, common))   # after every case
    common.write(args.out, "kda", document, markdown(document, common))
    print(markdown(document, common))
    return 0 if all_ok else 1


def markdown(document, common):
    rows, six_ratios = [], {}
    titles = dict({n: "cake chunked (%s)" % title for n, (_prep, _wg, title) in CAKE_CHUNKED.items()},
                  cake="cake recurrent", cake_scan_wg2="cake 2-wg scan only", cake_scan="cake scan only",
                  flashkda="FlashKDA", fla="fla", fla_safe="fla safe_gate")
    names = list(titles)
    for rec in document["cases"]:
        t = rec.get("timing", {})
        ck = rec.get("checks", {})
        row = [rec["case"] + ("" if rec.get("seq_lens") is None or len(rec["seq_lens"]) < 2 else " varlen"),
               "%sx%s" % (rec.get("B", "-"), rec.get("T", "-"))]
        for n in names:
            row.append(common.fmt(t[n]["ms"], "%.3f") if n in t else "-")
        for n in names:
            c = ck.get(n)
            row.append("-" if c is None else ("%.1e / %.1e%s" % (c.get("o_rel_err", math.nan),
                                                                 c.get("state_rel_err", math.nan),
                                                                 "" if c["ok"] else " FAIL")))
        if "flashkda" in t and "fla" in t:
            row.append("%.2f" % (t["fla"]["ms"] / t["flashkda"]["ms"]))
        else:
            row.append("-")
        rows.append(row)
        if rec.get("six"):
            for n in t:
                six_ratios.setdefault(n, []).append(t[n]["ms"])
    header = (["case", "B x T"] + ["%s ms" % titles[n] for n in names] +
              ["%s err o / state" % titles[n] for n in names] + ["fla / FlashKDA"])
    device = (document["meta"].get("device") or {}).get("name", "no GPU")
    text = ("# KDA forward, %s\n\n`%s`\n\n\"cake scan only\" times kernels/kda/chunk_scan.cake alone (the sequential "
            "half of the chunked form; its inputs come from a torch scaffold that is not timed): it is not a whole "
            "forward and is not compared as one.\n\n" % (device, document["meta"].get("command")))
    text += common.table(header, rows) + "\n"
    if "flashkda" in six_ratios:
        base = six_ratios["flashkda"]
        lines = []
        for n, ms in six_ratios.items():
            if len(ms) == len(base) and not n.startswith("cake_scan"):     # the scan alone is no whole forward
                gm = math.exp(sum(math.log(b / m) for b, m in zip(base, ms)) / len(ms))
                lines.append("- %s: geometric-mean speed vs FlashKDA over the six cases = %.3fx" % (n, gm))
        text += "\n" + "\n".join(lines) + "\n"
    return text


if __name__ == "__main__":
    sys.exit(main())
