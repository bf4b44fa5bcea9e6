#!/usr/bin/env python3
"""Small ragged launches of the fragment-epilogue samples, checked like the full benches, meant to run under
compute-sanitizer (the full benches are too slow there).  On the GPU machine:

    compute-sanitizer --tool memcheck python3 bench/fragment_samples_small.py [bench/out/fragments]
    compute-sanitizer --tool racecheck python3 bench/fragment_samples_small.py [bench/out/fragments]

Kernels: whatever bench/fragment_samples_build.sh built (attention_fwd*, gemm_bias_act* and hopper_gemm_persistent,
kmeans_assign*); shapes: attention 1x2x129x128 and 2x4x333x64 (causal and not), GEMM 200x264x72 and
520x776x200, k-means N=1000 K=37 and N=333 K=130 (D 64 and 128).  No timing.  One line per launch; exit 1
when one is wrong, 0 otherwise (also when there is no kernel at all: nothing to check)."""

import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)

import fragment_samples_common as common  # noqa: E402
import attention_bench as att  # noqa: E402
import gemm_bias_act_bench as gba  # noqa: E402
import kmeans_assign_bench as km  # noqa: E402


def main():
    cubins = sys.argv[1] if len(sys.argv) > 1 else os.path.join(BENCH_DIR, "out", "fragments")
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    att_kernels = common.find_cubins(cubins, "attention_fwd")
    gemm_kernels = gba.find_kernels(cubins, peers_only=False)
    km_kernels = common.find_cubins(cubins, "kmeans_assign")
    if not (att_kernels or gemm_kernels or km_kernels):
        print("fragment_samples_small.py: no kernels under %s: nothing to check" % cubins)
        return 0
    cake = common.use_runtime(cubins)
    seeds = common.Seeds(11900)
    flusher = None
    ok = True
    for case in [att.Case(1, 2, 129, 128, c) for c in (False, True)] + \
            [att.Case(2, 4, 333, 64, c) for c in (False, True)]:
        pick = att.select_kernel(att_kernels, case)
        if pick is None:
            continue
        r = att.run_case(torch, case, att.cake_candidate(cake, pick[1], pick[2]), {}, seeds, flusher, timing=False)
        good = r["status"] == "ok"
        ok = ok and good
        print("%-24s %-26s O err %.2e LSE err %.2e %s" % (pick[0], case.label, max(c["o"]["rel_err"] for c in
              r["checks"]), max(c["lse"]["max_abs_err"] for c in r["checks"]), "ok" if good else "WRONG"), flush=True)
    for k in gemm_kernels:
        k.bound(cake)
    for shape in (gba.Shape(200, 264, 72), gba.Shape(520, 776, 200)):
        if not gemm_kernels:
            break
        r = gba.run_shape(torch, shape, gemm_kernels, seeds, flusher, timing=False)
        for name, checks in r["checks"].items():
            good = all(c["ok"] for c in checks)
            ok = ok and good
            print("%-24s %-26s rel err %.2e %s" % (name, shape.label, max(c["rel_err"] for c in checks),
                                                   "ok" if good else "WRONG"), flush=True)
        for name, error in r["errors"].items():
            ok = False
            print("%-24s %-26s ERROR %s" % (name, shape.label, error), flush=True)
    for shape in [km.Shape(1000, 37, d) for d in (64, 128)] + [km.Shape(333, 130, d) for d in (64, 128)]:
        pick = km.select_kernel(km_kernels, shape)
        if pick is None:
            continue
        candidate = km.cake_candidate(cake, pick[1], pick[2])
        checks = [km.check_candidate(torch, shape, candidate, seeds, first) for first in (False, True)]
        good = all(c["ok"] for c in checks)
        ok = ok and good
        print("%-24s %-26s wrong %d near ties %d %s" % (pick[0], shape.label, sum(c["wrong_labels"] for c in checks),
                                                        sum(c["near_ties"] for c in checks), "ok" if good else "WRONG"),
              flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
