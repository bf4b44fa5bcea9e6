#!/usr/bin/env python3
"""FlashKDA's forward (both of its kernels) on seeded inputs, a few calls, for Nsight Compute: the fixed T = 8192
case of bench/kda_bench.py (B = 1, H = --heads, K = V = 128, safe gate at -5, initial and final state), so that
the peer's per-kernel times can be set beside CAKE's (bench/kda_profile.py):

    ncu --metrics gpu__time_duration.sum,dram__bytes.sum -k regex:flash --launch-skip 2 --launch-count 2 \\
        python3 bench/kda_flashkda_profile.py --peers bench/out/kda/peers --heads 96

--peers: the folder holding FlashKDA/ with its built module (bench/kda_build_flashkda.sh)."""

import argparse
import os
import sys

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", required=True)
    ap.add_argument("--heads", type=int, default=96)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.peers, "FlashKDA"))
    import flash_kda

    T, H, D = 8192, args.heads, 128
    gen = torch.Generator(device="cuda").manual_seed(args.seed)

    def randn(*shape, dtype=torch.bfloat16, scale=1.0):
        return (torch.randn(*shape, device="cuda", generator=gen) * scale).to(dtype)

    q, k, v, g = (randn(1, T, H, D) for _ in range(4))
    beta = randn(1, T, H)
    A_log = torch.rand(H, device="cuda", generator=gen)
    dt_bias = randn(H, D, dtype=torch.float32, scale=0.1)
    h0 = torch.zeros(1, H, D, D, device="cuda")
    out = torch.empty_like(v)
    final = torch.empty_like(h0)
    for _ in range(args.calls):
        flash_kda.fwd(q, k, v, g, beta, D ** -0.5, out, A_log, dt_bias, -5.0, initial_state=h0, final_state=final)
    torch.cuda.synchronize()
    print("o finite:", torch.isfinite(out).all().item(), "state finite:", torch.isfinite(final).all().item())


if __name__ == "__main__":
    main()
