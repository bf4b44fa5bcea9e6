"""The algorithm of kernels/kda/chunk_prep_tc.cake on the CPU: the 16 x 16 block inverse of (I + L) (float64,
exact up to rounding) and the whole kernel model (f16 operands for the off-diagonal L / P blocks, bf16 operands
for w / u) through the chunk-scan model, against the float64 token recurrence.  Needs torch (CPU)."""

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable")

from cakeir.kda import kernels as kk  # noqa: E402
from cakeir.kda import reference as ref  # noqa: E402


def test_block_inverse_is_the_inverse():
    g = torch.Generator().manual_seed(1)
    L = torch.randn(3, 64, 64, generator=g, dtype=torch.float64).tril(-1) * 0.3
    T = kk.block_inverse_unit_lower(L)
    eye = torch.eye(64, dtype=torch.float64)
    assert torch.allclose(T @ (eye + L), eye.expand_as(T), atol=1e-9)
    assert torch.equal(T.triu(1), torch.zeros_like(T))


@pytest.mark.parametrize("lower_bound,T,cu", [(-5.0, 130, None), (None, 150, [0, 1, 70, 70, 150])])
def test_tc_model_matches_recurrence(lower_bound, T, cu):
    H = 1
    x = ref.make_inputs(1, T, H, 128, 128, seed=7, with_initial_state=True,
                        num_states=None if cu is None else len(cu) - 1)
    cut = torch.tensor(cu if cu is not None else [0, T], dtype=torch.int64)
    scale = 128 ** -0.5
    flat = lambda t: t.reshape(T, H, *t.shape[3:])  # noqa: E731
    args = (flat(x["q"]), flat(x["k"]), flat(x["v"]), flat(x["g"]), x["beta"].reshape(T, H), x["A_log"],
            x["dt_bias"], lower_bound, scale, cut)
    tc = kk.prepare_chunks_tc_model(*args)
    f32 = kk.prepare_chunks(*args)
    for name in ("W", "U", "P", "QG", "KG"):
        err = ref.rel_error(tc[name].float(), f32[name].float())
        assert err < 1e-2, (name, err)
    h0 = x["initial_state"]
    o, st = kk.scan_chunks_torch(tc, (T, H, 128), cut, initial_state=h0, state_v_first=False)
    o_ref, s_ref = ref.kda_forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                   dt_bias=x["dt_bias"], lower_bound=lower_bound, scale=scale, initial_state=h0,
                                   cu_seqlens=None if cu is None else cut, state_v_first=False, method="recurrent")
    assert ref.rel_error(o.reshape(o_ref.shape), o_ref) < 1e-2
    assert ref.rel_error(st, s_ref) < 1e-2
