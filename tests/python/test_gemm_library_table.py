"""kernels/gemm/library_bf16_sm90.json: every shape of the domain, ragged and odd ones included, has a
tensor-core entry ahead of the SIMT fallback (N % 8 != 0 where the TMA-epilogue kernel needs N % 8 == 0, odd N,
K % 8 != 0), and the tile width follows whole waves; evaluated with the runtime's expression evaluator."""

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
    # the classes the later entries serve
    assert chosen[(4097, 4098, 256)].startswith("persistent_bn")   # N % 8 != 0: no TMA-epilogue kernel
    assert chosen[(200, 1001, 4096)] == "anyn_64x64_s4"        # odd N with M <= 320 and K > 2176
    # K % 8 != 0, fewer than 66 tiles of 128 x 128: odd K on the 2-byte any-K kernel, even K on its wider-load
    # forms (8-byte loads for K % 4 == 0, 4-byte pairs for the other even K)
    assert gen.choose(spec["dispatch"], {"M": 1000, "N": 1000, "K": 1003}) == "anyk_64x64_p1"
    assert chosen[(1000, 1000, 1004)] == "anyk_64x64_p1_v4"
    assert gen.choose(spec["dispatch"], {"M": 1000, "N": 1000, "K": 1006}) == "anyk_64x64_p1_v2"
    # K % 8 != 0 with few token rows: the decode form (swapped operands), split more where B's 64-row tiles are few
    assert chosen[(7, 1001, 4099)] == "anyk_dec_mt16_x16"
    assert chosen[(1, 4097, 1004)] == "anyk_dec_mt16_x8_v4"
    assert gen.choose(spec["dispatch"], {"M": 1, "N": 4097, "K": 1006}) == "anyk_dec_mt16_x8_v2"
    assert gen.choose(spec["dispatch"], {"M": 1, "N": 4097, "K": 1005}) == "anyk_dec_mt16_x8"
    assert gen.choose(spec["dispatch"], {"M": 7, "N": 1001, "K": 63}) == "mma_any_64x128"   # K <= 64
    assert gen.choose(spec["dispatch"], {"M": 7, "N": 1001, "K": 255}) == "anyk_64x64_p1"


def test_the_tile_width_follows_whole_waves():
    """The persistent and TMA-epilogue widths are chosen by wave cost (waves of 66 tile pairs x width x a
    per-width efficiency): the width changes with how the tiles fall on 132 SMs, not with a size threshold."""
    spec = json.load(open(SPEC))
    pick = lambda m, n, k: gen.choose(spec["dispatch"], {"M": m, "N": n, "K": k})  # noqa: E731
    assert pick(3072, 3072, 3072) == "persistent_bn192"         # 256 wide: 144 pairs, 2.2 waves
    assert pick(4096, 4096, 4096) == "persistent_bn256"         # 256 pairs: 3.9 waves
    assert pick(1536, 1536, 1536) == "tma_epilogue_bn192"       # K <= 2560: the TMA-epilogue kernel
    assert pick(2048, 2048, 2048) == "tma_epilogue_bn256"       # 64 pairs: one wave
    assert pick(1437, 408, 2096) == "tile_128x64_s4"            # 24 pairs of 128: too few for persistence
