#!/usr/bin/env python3
"""Correctness sweep of the CAKE KDA forward (cakeir.kda.kernels, kernels/kda/) on the GPU against the float64
token recurrence (cakeir.kda.reference, computed on the GPU in float64), on seeded stress cases: tiny sequences
(T = 1, 15, 17), varlen batches with empty and one-token sequences, both gates at both bounds, both state
layouts, K = V = 128 and 64 (64: the recurrent kernel), with and without initial / final state, a long history
(T = 65536: a truncated recurrence fails), and chunk-by-chunk state passing (two calls chained through the final
state) against one pass.  Each K = 128 case also runs the chunked form (cakeir.kda.kernels.forward_chunked:
kernel 1 as kernels/kda/chunk_prep.cake, as kernels/kda/chunk_prep_tc.cake, chunk_prep_tc2.cake and
chunk_prep_tc3.cake (tensor cores, workspaces NaN-poisoned first) and as the torch scaffold, each +
kernels/kda/chunk_scan.cake; the tc2 / tc3 preps and the torch scaffold also with the scan's WG = 2 build:
CHUNKED_PATHS).

    bash bench/kda_build.sh                                          # development machine: the cubins
    python3 bench/kda_check.py --cubins bench/out/kda/cubins --out DIR [--seed S]

Outputs are NaN-poisoned before each call; inputs are compared with copies afterwards.  A case passes when the
relative errors ||x - ref|| / ||ref|| of o and of the final state are <= --tol (bf16 output: ~4e-3 is what fla
reaches on the bench's cases).  Exit 0 when every case passes.  Writes DIR/kda_check.json and .md."""

import argparse
import json
import math
import os
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

from kda_bench import CAKE_CHUNKED  # noqa: E402

# the chunked paths each case runs: (label, title, forward_chunked's prep, scan warpgroups): kda_bench's CAKE
# forwards (the label is the bench name with "cake_chunked" shortened to "cake"; bench/kda_device_run.sh maps it
# back) and the torch scaffold's prep with either scan
CHUNKED_PATHS = tuple((name.replace("cake_chunked", "cake", 1), "CAKE " + title, prep, wg)
                      for name, (prep, wg, title) in CAKE_CHUNKED.items()) + (
    ("torch", "torch prep + scan", "torch", 1), ("torch_wg2", "torch prep + two-warpgroup scan", "torch", 2))


def cases():
    # (name, B, T, H, seq_lens or None, lower_bound, state_v_first, use_h0, want_ht, gate_shift, K = V)
    out = []
    for T in (1, 15, 17, 130):
        out.append(("T=%d" % T, 2, T, 4, None, -5.0, True, True, True, 0.0))
    out.append(("varlen empty/one-token", 1, None, 4, [0, 1, 17, 0, 64, 65, 3, 0], -5.0, True, True, True, 0.0))
    out.append(("unbounded gate, K-first", 2, 130, 4, None, None, False, True, True, 0.0))
    out.append(("safe gate, K-first", 2, 77, 4, None, -5.0, False, True, True, 0.0))
    out.append(("no state", 2, 100, 4, None, -5.0, True, False, False, 0.0))
    out.append(("final state only", 2, 100, 4, None, -5.0, True, False, True, 0.0))
    out.append(("initial state only", 2, 100, 4, None, -5.0, True, True, False, 0.0))
    for lb in (-5.0, None):
        for shift in (-30.0, 30.0):
            out.append(("gate %s shift %+g" % ("safe" if lb else "unbounded", shift), 1, 200, 4, None, lb, True,
                        True, True, shift))
    out.append(("lower_bound -1", 1, 300, 4, None, -1.0, True, True, True, 0.0))
    out.append(("long history T=65536", 1, 65536, 2, None, -5.0, True, True, True, -3.0))
    out.append(("varlen 1024x8 H=16", 1, None, 16, [1024] * 8, -5.0, True, True, True, 0.0))
    out = [c + (128,) for c in out]
    # K = V = 64: the recurrent kernel only (the chunked kernels take 128)
    out.append(("K=64 T=17", 2, 17, 4, None, -5.0, True, True, True, 0.0, 64))
    out.append(("K=64 varlen empty/one-token, unbounded, K-first", 1, None, 4, [0, 1, 17, 0, 64, 65, 3, 0], None,
                False, True, True, 0.0, 64))
    out.append(("K=64 no state T=300", 2, 300, 4, None, -5.0, True, False, False, 0.0, 64))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubins", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--tol", type=float, default=1e-2)
    args = ap.parse_args()

    import torch
    from cakeir.kda import reference as ref
    from cakeir.kda import kernels as kk
    from cakeir.kda.kernels import Kernels
    import fragment_samples_common as common

    lib = Kernels(args.cubins)
    records, all_ok = [], True
    for i, (name, B, T, H, lens, lb, vfirst, use_h0, want_ht, shift, K) in enumerate(cases()):
        seed = args.seed + i
        rec = {"case": name, "seed": seed}
        try:
            if lens is not None:
                T = sum(lens)
                cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), dtype=torch.long, device="cuda")
                N = len(lens)
            else:
                cu, N = None, B
            x = ref.make_inputs(B, T, H, K, K, seed=seed, device="cuda", gate_shift=shift,
                                with_initial_state=True, num_states=N)
            h0 = x["initial_state"]
            if vfirst:
                h0 = h0.transpose(-1, -2).contiguous()
            guard = common.InputGuard({k: v for k, v in x.items()})
            o = torch.full((B, T, H, K), float("nan"), dtype=torch.bfloat16, device="cuda")
            ht = torch.full_like(h0, float("nan")) if want_ht else None
            t0 = time.time()
            o, ht = lib.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                                lower_bound=lb, initial_state=h0 if use_h0 else None, output_final_state=want_ht,
                                cu_seqlens=cu, state_v_first=vfirst, out=o, final_state=ht)
            torch.cuda.synchronize()
            rec["kernel_s"] = time.time() - t0
            t0 = time.time()
            o_ref, s_ref = ref.kda_forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                           dt_bias=x["dt_bias"], lower_bound=lb,
                                           initial_state=h0 if use_h0 else None, cu_seqlens=cu,
                                           state_v_first=vfirst)
            rec["reference_s"] = time.time() - t0
            rec["o_rel_err"] = ref.rel_error(o, o_ref)
            rec["o_nan"] = int(torch.isnan(o.float()).sum())
            if want_ht:
                rec["state_rel_err"] = ref.rel_error(ht, s_ref)
                rec["state_nan"] = int(torch.isnan(ht).sum())
            rec["inputs_changed"] = guard.changed()
            ok = (rec["o_rel_err"] <= args.tol and rec["o_nan"] == 0 and not rec["inputs_changed"] and
                  (not want_ht or (rec["state_rel_err"] <= args.tol and rec["state_nan"] == 0)))
            # the chunked form: kernel 1 as kernels/kda/chunk_prep.cake ("cake") and as the torch scaffold
            # ("torch"), each followed by kernels/kda/chunk_scan.cake
            for label, _title, prep, scan_wg in (CHUNKED_PATHS if K == kk.HEAD_DIM else ()):
                try:
                    oc, sc = kk.forward_chunked(lib, x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                                dt_bias=x["dt_bias"], lower_bound=lb,
                                                initial_state=h0 if use_h0 else None, output_final_state=want_ht,
                                                cu_seqlens=cu, state_v_first=vfirst, prep=prep,
                                                poison=prep.startswith("cake_tc"), scan_wg=scan_wg)
                    torch.cuda.synchronize()
                    rec["chunked_%s_o_rel_err" % label] = ref.rel_error(oc, o_ref)
                    if want_ht:
                        rec["chunked_%s_state_rel_err" % label] = ref.rel_error(sc, s_ref)
                    good = (rec["chunked_%s_o_rel_err" % label] <= args.tol and
                            (not want_ht or rec["chunked_%s_state_rel_err" % label] <= args.tol))
                except Exception as error:  # noqa: BLE001
                    good = False
                    rec["chunked_%s_error" % label] = "%s: %s" % (type(error).__name__, error)
                rec["chunked_%s_ok" % label] = bool(good)
                ok = ok and good
            if lens is None and want_ht and T >= 2:
                # chunk-by-chunk state passing: [0, T1) then [T1, T) through the final state == one pass
                T1 = T // 2 + 1
                part = lambda t, a, b: t[:, a:b].contiguous()  # noqa: E731
                o1, s1 = lib.forward(*(part(x[n], 0, T1) for n in ("q", "k", "v", "g", "beta")), A_log=x["A_log"],
                                     dt_bias=x["dt_bias"], lower_bound=lb, initial_state=h0 if use_h0 else None,
                                     output_final_state=True, state_v_first=vfirst)
                o2, s2 = lib.forward(*(part(x[n], T1, T) for n in ("q", "k", "v", "g", "beta")), A_log=x["A_log"],
                                     dt_bias=x["dt_bias"], lower_bound=lb, initial_state=s1,
                                     output_final_state=True, state_v_first=vfirst)
                torch.cuda.synchronize()
                rec["passing_o_rel_err"] = ref.rel_error(torch.cat([o1, o2], 1), o_ref)
                rec["passing_state_rel_err"] = ref.rel_error(s2, s_ref)
                ok = ok and rec["passing_o_rel_err"] <= args.tol and rec["passing_state_rel_err"] <= args.tol
            rec["ok"] = bool(ok)
        except Exception as error:  # noqa: BLE001
            rec["ok"] = False
            rec["error"] = "%s: %s" % (type(error).__name__, error)
            rec["traceback"] = traceback.format_exc(limit=5)
        all_ok &= rec["ok"]
        records.append(rec)
        print(json.dumps(rec, default=str), flush=True)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "kda_check.json"), "w") as f:
        json.dump({"command": " ".join(sys.argv), "seed": args.seed, "tol": args.tol, "cases": records}, f, indent=1)
    lines = ["| case | seed | recurrent: o err | state err | passing o / state | " +
             " | ".join("chunked (%s): o / state" % title for _label, title, _prep, _wg in CHUNKED_PATHS) + " | ok |",
             "|---|---|---|---|---|" + "---|" * len(CHUNKED_PATHS) + "---|"]
    for r in records:
        g = lambda k: ("%.2e" % r[k]) if k in r else "-"  # noqa: E731
        cells = [r["case"], str(r["seed"]), g("o_rel_err"), g("state_rel_err"),
                 "%s / %s" % (g("passing_o_rel_err"), g("passing_state_rel_err"))]
        for label, _title, _prep, _wg in CHUNKED_PATHS:
            cells.append(("%s / %s %s" % (g("chunked_%s_o_rel_err" % label), g("chunked_%s_state_rel_err" % label),
                                          r.get("chunked_%s_error" % label, ""))).rstrip())
        cells.append("yes" if r["ok"] else "NO " + r.get("error", ""))
        lines.append("| " + " | ".join(cells) + " |")
    with open(os.path.join(args.out, "kda_check.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
