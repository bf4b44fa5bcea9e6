# Experiment (not a result): k = 1 KNN shapes with fewer than ARGMIN_BLOCKS query blocks and more work than
# knn_small's bound - every route timed (default route, the argmin path, knn_small's paths, the knn library),
# with flashlib, under the bench's protocol (L2 flushed, interleaved rounds).  Prints a table.
import json, os, random, sys
import torch
REPO = os.getcwd()
sys.path.insert(0, os.path.join(REPO, "bench")); sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
import library_knn_bench as lib
import fragment_samples_common as common
from library_knn_shapes import Shape
rng = random.Random(5)
shapes = []
while len(shapes) < int(sys.argv[2]):
    b = rng.choice([1, 1, 2, 4, 8]); q = int(10 ** rng.uniform(2.6, 4.2)); m = int(10 ** rng.uniform(3.3, 6.0))
    d = rng.choice([64, 128, 256])
    blocks = b * -(-q // 128)
    if blocks >= 128 or b * q * m * d < 2 ** 32.5 or b * q * m * d > 2 ** 36:
        continue
    shapes.append(Shape("knn", b, q, m, d, 1, b > 1))
impls = lib.Impls(torch, lib.DEFAULT_CUBINS, lib.DEFAULT_PEERS, False)
flusher = common.L2Flusher(torch)
out = []
for i, s in enumerate(shapes):
    x, c, _ = lib.make_inputs(torch, s, 1000 + i)
    fns = impls.for_shape(s, paths=True)
    timed = {k: (lambda fn=fn: fn(x, c)) for k, fn in fns.items() if k != "torch"}
    t = common.time_interleaved(torch, timed, flusher, 2, 3)
    row = {"shape": s.label, "blocks": s.b * -(-s.q // 128), "ms": {k: round(v["ms"], 4) for k, v in t.items()}}
    out.append(row)
    print(json.dumps(row), flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
