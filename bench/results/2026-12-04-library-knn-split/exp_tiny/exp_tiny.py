"""knn_small at k = 1, D = 128 in three builds - the library's (S = 6, BN = 64: 122 registers, 141 KB of shared
memory, one block per SM), S = 2 (two blocks per SM) and S = 2, BN = 32 (80 registers, 52 KB: three blocks per
SM) - on large query sets with tiny corpora and on tiny problems, against Kernels.knn and flashlib in the same
process (bench/fragment_samples_common.time_interleaved: L2 flushed, 3 rounds of 5, median; the three builds'
indices compared bit for bit).  The run of 2026-12-04 (exp_tiny.json; microseconds):

    cakec --no-verify -D HD=128 -D KK=1 -D S=6 -D BN=64 --kernel knn_small kernels/kmeans/assign_sm90.cake -o bench/out/knnlib/exp/k1_s6_bn64.cubin
    cakec --no-verify -D HD=128 -D KK=1 -D S=2 -D BN=64 --kernel knn_small kernels/kmeans/assign_sm90.cake -o bench/out/knnlib/exp/k1_s2_bn64.cubin
    cakec --no-verify -D HD=128 -D KK=1 -D S=2 -D BN=32 --kernel knn_small kernels/kmeans/assign_sm90.cake -o bench/out/knnlib/exp/k1_s2_bn32.cubin
    # device (carry bench/out/knnlib, staged by bench/library_knn_stage.sh):
    OUT=... python3 bench/results/2026-12-04-library-knn-split/exp_tiny/exp_tiny.py
"""
import os, sys, json
sys.path.insert(0, "bench"); sys.path.insert(0, "runtime/python")
os.environ.setdefault("CAKE_RUNTIME_LIB", "bench/out/knnlib/cubins/libcake_runtime.so")
import torch
import fragment_samples_common as common
import cakeir
sys.path.insert(0, "bench/out/knnlib/peers/flashlib")
import peer_stubs; peer_stubs.stub_peer_imports()
from flashlib.primitives.knn.triton.dispatch import flash_knn_triton
from cakeir.kmeans import Kernels
lib = Kernels("bench/out/knnlib/cubins")
vars_ = {n: cakeir.load("bench/out/knnlib/exp/%s.cubin" % n).kernels["knn_small"] for n in ("k1_s6_bn64", "k1_s2_bn64", "k1_s2_bn32")}
fl = common.L2Flusher(torch)
out = []
for (b, q, m) in [(4, 65537, 1), (16, 13667, 1), (4, 30593, 6), (1, 65537, 2), (1, 65537, 9), (1, 1, 1), (1, 12, 5), (1, 1000, 5), (8, 1000, 60), (1, 22782, 1)]:
    g = torch.Generator(device="cuda").manual_seed(7)
    x = torch.randn((b, q, 128), generator=g, device="cuda").bfloat16()
    c = torch.randn((b, m, 128), generator=g, device="cuda").bfloat16()
    od = torch.empty((b, q, 1, 1), device="cuda"); oi = torch.empty((b, q, 1, 1), dtype=torch.int32, device="cuda")
    qn = torch.empty((b, q), device="cuda")
    fns = {n: (lambda k=k: k(x, c, od, oi, qn, 1.0, 1.0)) for n, k in vars_.items()}
    fns["cake"] = lambda: lib.knn(x, c, 1)
    fns["flashlib"] = lambda: flash_knn_triton(x, c, 1)
    ref = None
    for n, f in fns.items():
        f(); torch.cuda.synchronize()
        if n.startswith("k1_"):
            if ref is None: ref = oi.clone()
            assert torch.equal(oi, ref), n
    t = common.time_interleaved(torch, fns, fl, 3, 5)
    line = {"shape": [b, q, m], **{n: round(v["ms"] * 1000, 2) for n, v in t.items()}}
    print(line, flush=True); out.append(line)
os.makedirs(os.environ["OUT"], exist_ok=True)
json.dump(out, open(os.path.join(os.environ["OUT"], "exp_tiny.json"), "w"), indent=1)
