"""kernels/gemm/library_bf16_sm90.json: every shape of the domain, ragged and odd ones included, has a
tensor-core entry ahead of the SIMT fallback (the catch-alls for N % 8 != 0 behind a TMA-epilogue guard, odd N
behind the 64 x 32 tile's, and K % 8 != 0), evaluated with the runtime's expression evaluator."""

import itertools
import json
import os

from cakeir import generalize as gen

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(REPO, "kernels", "gemm", "library_bf16_sm90.json")


def test_no_shape_of_the_grid_falls_to_the_simt_fallback():
    spec = json.load(open(SPEC))
    sizes = (1, 7, 64, 200, 321, 1000, 1001, 2050, 4097, 4098)
    chosen = {}
    for m, n, k in itertools.product(sizes, sizes, (1, 7, 64, 256, 1004, 4096, 4099, 65536)):
        chosen[(m, n, k)] = gen.choose(spec["dispatch"], {"M": m, "N": n, "K": k})
    assert not [s for s, v in chosen.items() if v == "simt"]
    # the classes the catch-alls serve
    assert chosen[(4097, 4098, 256)] == "persistent_bn256"     # N % 8 != 0: no TMA-epilogue kernel
    assert chosen[(200, 1001, 4096)] == "anyn_64x64_s4"        # odd N with M <= 320 and K > 2176
    assert chosen[(1000, 1000, 1004)] == "anyk_128x128_p2"     # K % 8 != 0
