"""kernels/kda/recurrent.cake at K = V = 64 (-D KD=64 -D VD=64 -D TPC=8: 8 lanes a state column, a 3-step
butterfly) on the CPU interpreter equals the K = V = 128 build (16 lanes, 4 steps) on the same inputs zero-padded
to 128 channels, bit for bit: padded k / q channels add exact zeros to the norms and to S^T k, padded state rows
stay 0 (k_d = 0), padded value columns stay 0, and the 16-lane butterfly's first step adds the zero half.  The
K = 128 build is checked against the float64 recurrence on the device (test_kda_kernels.py).  Needs NumPy and
cakec."""

import os

import pytest

np = pytest.importorskip("numpy", reason="cakeir.interpret needs NumPy")

from cakeir import interpret  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECURRENT = os.path.join(REPO, "kernels", "kda", "recurrent.cake")
K64 = {"KD": 64, "VD": 64, "TPC": 8}


def bf16(x):
    """x rounded to bf16 (to nearest even), as float32: what the interpreter holds for a bf16 input."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def pad(x, axis, to):
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, to - x.shape[axis])
    return np.pad(x, widths)


@pytest.mark.parametrize("safe,v_first,seed", [(1, 1, 1), (0, 0, 2)])
def test_k64_equals_k128_on_zero_padded_inputs(cakec_only, safe, v_first, seed):
    rng = np.random.default_rng(seed)
    TT, H, K = 11, 2, 64
    cu = np.array([0, 6, 6, TT], dtype=np.int64)           # three sequences, the middle one empty
    N = len(cu) - 1
    x = {"q": bf16(rng.standard_normal((TT, H, K))), "k": bf16(rng.standard_normal((TT, H, K))),
         "v": bf16(rng.standard_normal((TT, H, K))), "g": bf16(rng.standard_normal((TT, H, K))),
         "beta": bf16(rng.standard_normal((TT, H))),
         "A_log": rng.uniform(-1.0, 0.5, H).astype(np.float32),
         "dt_bias": rng.standard_normal((H, K)).astype(np.float32),
         "h0": (0.1 * rng.standard_normal((N, H, K, K))).astype(np.float32)}
    scalars = {"scale": K ** -0.5, "lower_bound": -5.0}
    defines = {"SAFE": safe, "VFIRST": v_first}

    def run(inputs, width, extra):
        ins = dict(inputs, cu=cu, ht=np.full((N, H, width, width), np.nan, np.float32),
                   o=np.full((TT, H, width), np.nan, np.float32))
        return interpret.run(RECURRENT, inputs=ins, outputs=["o", "ht"], scalars=scalars,
                             defines=dict(defines, **extra), cakec=cakec_only)

    small = run(x, K, K64)
    wide_inputs = {name: pad(a, -1, 128) for name, a in x.items() if name in ("q", "k", "v", "g", "dt_bias")}
    wide_inputs.update(beta=x["beta"], A_log=x["A_log"], h0=pad(pad(x["h0"], -1, 128), -2, 128))
    wide = run(wide_inputs, 128, {})
    assert not np.isnan(small["o"]).any() and not np.isnan(small["ht"]).any()
    assert np.array_equal(small["o"], wide["o"][:, :, :K])
    assert np.array_equal(small["ht"], wide["ht"][:, :, :K, :K])
    assert not np.any(wide["o"][:, :, K:])
    assert not np.any(wide["ht"][:, :, K:, :]) and not np.any(wide["ht"][:, :, :, K:])
    # the empty sequence passes its initial state through
    assert np.array_equal(small["ht"][1], x["h0"][1])
