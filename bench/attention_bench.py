#!/usr/bin/env python3
"""FlashAttention forward on the H200: samples/attention_fwd.cake against torch SDPA (FLASH_ATTENTION backend,
FA2, and CUDNN_ATTENTION backend), in the same process.

    bash bench/fragment_samples_build.sh                                 # development machine: bench/out/fragments/
    python3 bench/attention_bench.py --dry-run                  # anywhere: cases and kernel choice
    python3 bench/attention_bench.py --out DIR [--peers-only]   # GPU machine: DIR/attention.{json,md}

Problem: Q, K, V bf16 [B, H, T, D] (row-major, contiguous); outputs O bf16 [B, H, T, D] and LSE f32 [B, H, T]
= the natural-log log-sum-exp of the scaled scores of each query row, scale = 1/sqrt(D) (causal: key j <= query
i, top-left aligned, as SDPA's is_causal).  Kernels: bench/out/fragments/attention_fwd*.cubin; the manifest's
compile-time parameters pick the kernel of a case: CAUSAL (0/1, default 0) must equal the case's causality,
and HD (when the kernel has one) its head dim D.  Kernel parameters bind by name: Q, K, V, O, and LSE (or L).

Per case: fresh seeded inputs, poisoned outputs (NaN), inputs compared with copies after the kernel ran;
check 1 runs the kernel before the float32 torch reference, check 2 (new seed, after timing) the reference
first.  O: relative error ||O - ref|| / ||ref|| <= 1e-2 with bench/measure.py's outlier test (no element off by
more than 10 x tol x rms + 2 bf16 ulp), no NaN left.  LSE: max |LSE - ref| <= 5e-3, no NaN left.  The peers are
checked the same way on check 1 (FA2's own log-sum-exp through aten._scaled_dot_product_flash_attention
validates the LSE reference).  Timing: bench/fragment_samples_common.py (L2 flushed before every run, interleaved
rounds, median); TFLOP/s = 4 B H T^2 D (halved for causal) / time; a time under the physical floor fails.
Exit: 0 all correct (and the acceptance checks that could run passed), 1 otherwise, 2 nothing could run."""

import argparse
import math
import os
import sys
import time
import traceback

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)

import fragment_samples_common as common  # noqa: E402

O_TOL = 1e-2
LSE_ABS_TOL = 5e-3
REF_CHUNK_BYTES = 1 << 30            # float32 score matrix of one reference chunk of heads
ALIASES = {"L": "LSE", "Lse": "LSE", "lse": "LSE"}


class Case:
    def __init__(self, b, h, t, d, causal, timed=True, accept=False):
        self.b, self.h, self.t, self.d, self.causal = b, h, t, d, causal
        self.timed, self.accept = timed, accept
        self.label = "%dx%dx%dx%d%s" % (b, h, t, d, " causal" if causal else "")

    @property
    def flops(self):
        full = 4 * self.b * self.h * self.t * self.t * self.d
        return full // 2 if self.causal else full

    @property
    def nbytes(self):
        return 4 * self.b * self.h * self.t * self.d * 2 + self.b * self.h * self.t * 4

    def dims(self):
        return {"B": self.b, "H": self.h, "T": self.t, "D": self.d, "causal": self.causal}


def cases():
    out = []
    for causal in (False, True):
        out.append(Case(4, 16, 8192, 128, causal, accept=True))
        out.append(Case(16, 16, 2048, 64, causal))
        out.append(Case(4, 8, 1000, 128, causal))          # ragged T: not a multiple of any tile
        out.append(Case(2, 4, 333, 64, causal))
        out.append(Case(1, 2, 129, 128, causal))           # one query tile plus one row
    return out


# =========================================================================================== reference / check
def reference(torch, q, k, v, causal):
    """(O float32 [B, H, T, D], LSE float32 [B, H, T]) in float32 (TF32 off), a few heads at a time."""
    b, h, t, d = q.shape
    scale = 1.0 / math.sqrt(d)
    qf, kf, vf = (x.reshape(b * h, t, d) for x in (q, k, v))
    o = torch.empty(b * h, t, d, device=q.device, dtype=torch.float32)
    lse = torch.empty(b * h, t, device=q.device, dtype=torch.float32)
    mask = torch.ones(t, t, device=q.device, dtype=torch.bool).triu(1) if causal else None
    step = max(1, REF_CHUNK_BYTES // (t * t * 4))
    for i in range(0, b * h, step):
        s = torch.matmul(qf[i:i + step].float(), kf[i:i + step].float().transpose(1, 2)) * scale
        if mask is not None:
            s.masked_fill_(mask, float("-inf"))
        m = torch.logsumexp(s, dim=-1)
        lse[i:i + step] = m
        s.sub_(m.unsqueeze(-1)).exp_()
        o[i:i + step] = torch.matmul(s, vf[i:i + step].float())
        del s
    return o.reshape(b, h, t, d), lse.reshape(b, h, t)


def check_outputs(torch, o, lse, o_ref, lse_ref):
    """{ok, o: measure.compare record, lse: {max_abs_err, nan_count, ok}} (lse may be None: a peer)."""
    import measure
    result = {"o": measure.compare(o, o_ref, O_TOL)}
    ok = result["o"]["ok"]
    if lse is not None:
        lf = lse.detach().float()
        nan = int(torch.isnan(lf).sum().item())
        err = float((torch.nan_to_num(lf, nan=0.0) - lse_ref).abs().max().item()) if lf.numel() else 0.0
        result["lse"] = {"max_abs_err": err, "nan_count": nan, "tolerance": LSE_ABS_TOL,
                         "ok": nan == 0 and err <= LSE_ABS_TOL}
        ok = ok and result["lse"]["ok"]
    result["ok"] = ok
    return result


# =========================================================================================== kernels and peers
def select_kernels(kernels, case):
    """Every (name, path, manifest) of kernels whose CAUSAL (default 0) and HD (if any) fit the case."""
    return common.matching_kernels(kernels, {"CAUSAL": int(case.causal), "HD": case.d}, {"CAUSAL": 0})


def select_kernel(kernels, case):
    """The first of select_kernels, or None."""
    picks = select_kernels(kernels, case)
    return picks[0] if picks else None


def cake_candidate(cake, path, manifest):
    """fn(q, k, v, o, lse) launching the cubin through the runtime."""
    kernel = next(iter(cake.load(path).kernels.values()))

    def run(q, k, v, o, lse):
        kernel(*common.bind(manifest, {"Q": q, "K": k, "V": v, "O": o, "LSE": lse}, ALIASES))
    return run


def peers(torch):
    """{name: fn(q, k, v, causal) -> O} for the SDPA backends."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def backend(which):
        def run(q, k, v, causal):
            with sdpa_kernel(which):
                return sdpa(q, k, v, is_causal=causal)
        return run
    return {"sdpa_flash": backend(SDPBackend.FLASH_ATTENTION), "sdpa_cudnn": backend(SDPBackend.CUDNN_ATTENTION)}


def fa2_lse(torch, q, k, v, causal):
    """FA2's own log-sum-exp (float32 [B, H, T]) through aten, to validate the LSE reference."""
    out = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False,
                                                              scale=1.0 / math.sqrt(q.shape[-1]))
    return out[1][..., :q.shape[2]]


# =========================================================================================== one case
def make_inputs(torch, case, seeds):
    gen, seed = seeds.generator(torch)
    shape = (case.b, case.h, case.t, case.d)
    return {n: common.randn(torch, shape, torch.bfloat16, gen) for n in ("Q", "K", "V")}, seed


def check_candidate(torch, case, candidate, seeds, reference_first):
    """One check on fresh inputs: the candidate and the reference in the given order."""
    inputs, seed = make_inputs(torch, case, seeds)
    q, k, v = inputs["Q"], inputs["K"], inputs["V"]
    o = common.poisoned(torch, q.shape, torch.bfloat16)
    lse = common.poisoned(torch, q.shape[:3], torch.float32)
    guard = common.InputGuard(inputs)
    ref = reference(torch, q, k, v, case.causal) if reference_first else None
    candidate(q, k, v, o, lse)
    torch.cuda.synchronize()
    changed = guard.changed()
    if ref is None:
        ref = reference(torch, q, k, v, case.causal)
    result = check_outputs(torch, o, lse, *ref)
    result.update(seed=seed, reference_first=reference_first, inputs_changed=changed)
    if changed:
        result["ok"] = False
    return result, inputs, ref


def run_case(torch, case, candidate, peer_fns, seeds, flusher, timing=True, rounds=common.ROUNDS,
             iters=common.ITERS_PER_ROUND):
    """The record of one case: checks of the candidate (None: peers only) and of the peers, timings, ratios."""
    record = {"case": case.label, "dims": case.dims(), "flops": case.flops, "bytes": case.nbytes, "checks": [],
              "peer_checks": {}, "peer_errors": {}}
    if candidate is not None:
        first, inputs, ref = check_candidate(torch, case, candidate, seeds, reference_first=False)
        record["checks"].append(first)
    else:
        inputs, _ = make_inputs(torch, case, seeds)
        ref = reference(torch, inputs["Q"], inputs["K"], inputs["V"], case.causal)
    q, k, v = inputs["Q"], inputs["K"], inputs["V"]
    live = {}
    for name, fn in peer_fns.items():
        try:
            out = fn(q, k, v, case.causal)
            torch.cuda.synchronize()
            record["peer_checks"][name] = check_outputs(torch, out, None, *ref)
            live[name] = fn
            del out
        except Exception as error:  # noqa: BLE001 - a backend may refuse a shape
            record["peer_errors"][name] = "%s: %s" % (type(error).__name__, str(error).splitlines()[0][:200])
    try:
        lse = fa2_lse(torch, q, k, v, case.causal)
        record["fa2_lse_vs_reference"] = float((lse.float() - ref[1]).abs().max().item())
    except Exception as error:  # noqa: BLE001
        record["fa2_lse_vs_reference"] = None
        record["peer_errors"]["fa2_lse"] = "%s: %s" % (type(error).__name__, str(error).splitlines()[0][:200])
    del ref
    if timing and case.timed:
        fns = {}
        if candidate is not None:
            o = common.poisoned(torch, q.shape, torch.bfloat16)
            lse = common.poisoned(torch, q.shape[:3], torch.float32)
            fns["cake"] = lambda: candidate(q, k, v, o, lse)
        for name, fn in live.items():
            fns[name] = (lambda f: lambda: f(q, k, v, case.causal))(fn)
        record["timing"] = common.time_interleaved(torch, fns, flusher, rounds, iters)
        for name, t in record["timing"].items():
            common.add_rates(t, case.flops, case.nbytes)
        if "cake" in record["timing"]:
            for name in live:
                record["cake_over_" + name] = record["timing"]["cake"]["tflops"] / record["timing"][name]["tflops"]
    del inputs, q, k, v
    if candidate is not None:
        second, _, _ = check_candidate(torch, case, candidate, seeds, reference_first=True)
        record["checks"].append(second)
    record["status"] = status_of(record, candidate is not None)
    return record


def status_of(record, has_candidate):
    if any(t.get("below_floor") for t in record.get("timing", {}).values()):
        return "below-floor"
    if not has_candidate:
        return "peers-only"
    return "ok" if record["checks"] and all(c["ok"] for c in record["checks"]) else "wrong"


# =========================================================================================== report
def acceptance(records, peers_only):
    lines = []
    for r in records:
        if not r.get("accept"):
            continue
        name = "%s %s >= 1.2x FA2 (SDPA flash)" % (r.get("kernel") or "attention_fwd", r["case"])
        ratio = r.get("cake_over_sdpa_flash")
        if peers_only or r.get("status") == "peers-only":
            lines.append(("SKIP", name, "no CAKE kernel in this run"))
        elif r.get("status") != "ok" or ratio is None:
            lines.append(("FAIL", name, "status %s%s" % (r.get("status"), "" if ratio else ", no ratio")))
        else:
            cudnn = r.get("cake_over_sdpa_cudnn")
            lines.append(("PASS" if ratio >= 1.2 else "FAIL", name, "x%.3f of FA2%s" % (
                ratio, "; x%.3f of cuDNN" % cudnn if cudnn else "")))
    return lines


def markdown(document):
    rows = []
    for r in document["cases"]:
        t = r.get("timing", {})
        c = r.get("checks", [])
        rows.append([r["case"], r.get("kernel") or "-", r.get("status"),
                     common.fmt(max((x["o"]["rel_err"] for x in c), default=None), "%.2e"),
                     common.fmt(max((x["lse"]["max_abs_err"] for x in c), default=None), "%.2e"),
                     common.fmt(t.get("cake", {}).get("ms"), "%.4f"),
                     common.fmt(t.get("cake", {}).get("tflops"), "%.1f"),
                     common.fmt(t.get("sdpa_flash", {}).get("tflops"), "%.1f"),
                     common.fmt(t.get("sdpa_cudnn", {}).get("tflops"), "%.1f"),
                     common.fmt(r.get("cake_over_sdpa_flash"), "%.3f"),
                     common.fmt(r.get("cake_over_sdpa_cudnn"), "%.3f"),
                     common.fmt((r["peer_checks"].get("sdpa_flash") or {}).get("o", {}).get("rel_err"), "%.1e"),
                     common.fmt(r.get("fa2_lse_vs_reference"), "%.1e"),
                     "; ".join("%s: %s" % kv for kv in r.get("peer_errors", {}).items())[:120] or r.get("error", "")])
    header = ["case", "kernel", "status", "O rel err", "LSE abs err", "cake ms", "cake TFLOP/s", "FA2 TFLOP/s",
              "cuDNN TFLOP/s", "cake/FA2", "cake/cuDNN", "FA2 O err", "FA2 LSE vs ref", "note"]
    m = document["meta"]
    text = ["# attention_fwd vs SDPA (FA2, cuDNN)", "",
            "- command: `%s`" % m.get("command"), "- date: %s; device: %s; torch %s, cuDNN %s" % (
                m.get("date"), (m.get("device") or {}).get("name"), (m.get("device") or {}).get("torch"),
                (m.get("device") or {}).get("cudnn")),
            "- timing: median of %s interleaved rounds x %s runs per function, L2 flushed (2 x L2 write) before "
            "each run, CUDA events; persisting L2: %s; TFLOP/s = 4 B H T^2 D (causal: half) / time" % (
                m.get("rounds"), m.get("iters"), (m.get("persisting_l2") or {}).get("status")),
            "- seeds: %s" % m.get("seeds"), "", common.table(header, rows), "", "## Acceptance", ""]
    text += ["- %s %s: %s" % line for line in document["acceptance"]]
    return "\n".join(text) + "\n"


# =========================================================================================== main
def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT"), help="folder for attention.{json,md}")
    p.add_argument("--cubins", default=os.path.join(BENCH_DIR, "out", "fragments"), help="fragment_samples_build.sh's folder")
    p.add_argument("--peers-only", action="store_true", help="no CAKE kernel: check and time the peers only")
    p.add_argument("--dry-run", action="store_true", help="list the cases and the kernel of each; no GPU")
    p.add_argument("--cases", help="comma-separated case labels (default: all)")
    p.add_argument("--no-timing", action="store_true", help="correctness only")
    p.add_argument("--rounds", type=int, default=common.ROUNDS)
    p.add_argument("--iters", type=int, default=common.ITERS_PER_ROUND)
    p.add_argument("--seed", type=int, default=11000)
    p.add_argument("--budget", type=float, default=240.0, help="seconds; later cases are skipped")
    args = p.parse_args(argv)
    if not args.dry_run and not args.out:
        p.error("--out DIR is required (or $OUT), unless --dry-run")
    return args


def planned(args):
    chosen = cases()
    if args.cases:
        wanted = [c.strip() for c in args.cases.split(",")]
        chosen = [c for c in chosen if c.label in wanted]
    kernels = [] if args.peers_only else common.find_cubins(args.cubins, "attention_fwd")
    return chosen, kernels


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    chosen, kernels = planned(args)
    if args.dry_run:
        for case in chosen:
            picks = select_kernels(kernels, case)
            print("%-26s flops=%.3g %s" % (case.label, case.flops,
                                           ", ".join(p[0] for p in picks) or "no kernel (peers only)"))
        print("dry run: %d cases, %d kernel(s)" % (len(chosen), len(kernels)))
        return 0
    try:
        import torch
        torch.zeros(1, device=common.DEVICE)
    except Exception as error:  # noqa: BLE001
        print("attention_bench.py: no GPU: %s" % error, file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    cake = common.use_runtime(args.cubins) if kernels else None
    seeds = common.Seeds(args.seed)
    document = {"format": "cake-attention-bench v1", "meta": common.meta(torch, args, {
        "rounds": args.rounds, "iters": args.iters, "peers_only": args.peers_only,
        "kernels": [{"name": n, "path": p, "ct_params": common.ct_params(m)} for n, p, m in kernels],
        "build": common.read_variants(args.cubins)}), "cases": []}
    flusher = common.L2Flusher(torch)
    peer_fns = peers(torch)
    deadline = time.time() + args.budget
    loaded = {}
    for case, pick in [(c, p) for c in chosen for p in (select_kernels(kernels, c) or [None])]:
        if time.time() > deadline:
            document["cases"].append({"case": case.label, "dims": case.dims(), "status": "skipped",
                                      "error": "time budget used up"})
            continue
        try:
            candidate = None
            if pick is not None:
                if pick[1] not in loaded:
                    loaded[pick[1]] = cake_candidate(cake, pick[1], pick[2])
                candidate = loaded[pick[1]]
            record = run_case(torch, case, candidate, peer_fns, seeds, flusher, not args.no_timing,
                              args.rounds, args.iters)
        except Exception as error:  # noqa: BLE001
            record = {"case": case.label, "dims": case.dims(), "status": "error",
                      "error": "%s: %s" % (type(error).__name__, error), "traceback": traceback.format_exc(limit=5)}
        record["kernel"] = pick[0] if pick else None
        record["accept"] = case.accept
        document["cases"].append(record)
        print("%-26s %-11s %s" % (case.label, record["status"], summary(record)), flush=True)
        torch.cuda.empty_cache()
    document["meta"]["seeds"] = seeds.used
    document["acceptance"] = acceptance(document["cases"], args.peers_only)
    text = markdown(document)
    common.write(args.out, "attention", document, text)
    print(text)
    bad = [r for r in document["cases"] if r["status"] not in ("ok", "peers-only", "skipped")]
    bad += [r for r in document["cases"] for c in r.get("peer_checks", {}).values() if not c["ok"]]
    return 1 if bad or any(s == "FAIL" for s, _, _ in document["acceptance"]) else 0


def summary(record):
    t = record.get("timing", {})
    parts = ["%s %.1f TFLOP/s" % (n, x["tflops"]) for n, x in t.items() if x.get("tflops")]
    if record.get("checks"):
        parts.append("O err %.1e" % max(c["o"]["rel_err"] for c in record["checks"]))
    if record.get("error"):
        parts.append(record["error"][:160])
    return ", ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
