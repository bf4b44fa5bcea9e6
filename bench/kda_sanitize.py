#!/usr/bin/env python3
"""compute-sanitizer target for the chunked KDA forward: kernels/kda/chunk_prep_tc3.cake and chunk_prep_tc2.cake +
chunk_scan.cake (scan with 2 and 1 warpgroups) on a mid-size varlen case (sequences 300, 17, 1000, 1, 129; H = 4; initial and final state,
V-first), both gates, workspaces NaN-poisoned; prints whether o and the final state are finite.

    CAKE_RUNTIME_LIB=... compute-sanitizer --tool memcheck|racecheck|synccheck python3 bench/kda_sanitize.py CUBINS"""

import sys, torch
sys.path.insert(0, "runtime/python")
from cakeir.kda.kernels import Kernels, forward_chunked
lib = Kernels(sys.argv[1] if len(sys.argv) > 1 else "bench/out/kda/cubins")
torch.manual_seed(7)
lens = [300, 17, 1000, 1, 129]
T, H, K = sum(lens), 4, 128
cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0)), dtype=torch.int64, device="cuda")
mk = lambda *s: torch.randn(*s, device="cuda").to(torch.bfloat16)
q, k, v, g = mk(1, T, H, K), mk(1, T, H, K), mk(1, T, H, K), mk(1, T, H, K)
beta = mk(1, T, H)
A_log, dt = torch.rand(H, device="cuda"), torch.rand(H * K, device="cuda")
h0 = torch.randn(len(lens), H, K, K, device="cuda")
for prep, lb, wg in (("cake_tc3", -5.0, 2), ("cake_tc3", -5.0, 1), ("cake_tc2", -5.0, 2), ("cake_tc2", None, 1)):
    o, ht = forward_chunked(lib, q, k, v, g, beta, A_log=A_log, dt_bias=dt, lower_bound=lb, initial_state=h0,
                            output_final_state=True, cu_seqlens=cu, state_v_first=True, prep=prep,
                            scan_wg=wg, poison=True)
    torch.cuda.synchronize()
    print("prep", prep, "gate", lb, "wg", wg, "finite", bool(torch.isfinite(o.float()).all() and torch.isfinite(ht).all()))
