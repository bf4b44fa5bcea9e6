#!/usr/bin/env python3
"""One chunked KDA forward per call, for Nsight Compute: the fixed T = 8192 case of bench/kda_bench.py (B = 1,
H = --heads, K = V = 128, safe gate, V-first initial and final state), run --calls times with kernel 1 = --prep
and the scan with --scan-wg warpgroups.  The first call is a warm-up: profile the later launches, e.g.

    ncu --set full --import-source yes -k regex:kda_chunk --launch-skip 2 --launch-count 2 -o prof \\
        python3 bench/kda_profile.py --cubins bench/out/kda/cubins
    ncu --import prof.ncu-rep --page source --csv --print-source sass | gzip > sass.csv.gz
    python3 bench/ncu_lines.py CUBIN sass.csv.gz --kernel kda_chunk_prep_tc3 --source kernels/kda/chunk_prep_tc3.cake

(the cubin built with -lineinfo to charge samples to .cake lines)."""

import argparse
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(os.path.dirname(BENCH_DIR), "runtime", "python"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cubins", required=True, help="bench/kda_build.sh's output folder")
    ap.add_argument("--prep", default="cake_tc3", help="forward_chunked's prep")
    ap.add_argument("--scan-wg", type=int, default=2)
    ap.add_argument("--heads", type=int, default=96)
    ap.add_argument("--calls", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261203)
    args = ap.parse_args()

    import torch
    import kda_bench
    from cakeir.kda import kernels as kk

    case = kda_bench.Case("fixed", args.heads, B=1, T=8192)
    x = kda_bench.make_case_inputs(torch, case, args.seed)
    lib = kk.Kernels(args.cubins)
    for _ in range(args.calls):
        o, ht = kk.forward_chunked(lib, x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                   dt_bias=x["dt_bias"], lower_bound=kda_bench.LOWER_BOUND,
                                   scale=kda_bench.D ** -0.5, initial_state=x["h0"], output_final_state=True,
                                   state_v_first=True, prep=args.prep, scan_wg=args.scan_wg)
    torch.cuda.synchronize()
    print("o finite:", bool(torch.isfinite(o.float()).all()), "state finite:", bool(torch.isfinite(ht).all()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
