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


@pytest.mark.parametrize("lower_bound,name", [(-5.0, "kda_chunk_prep_tc_safe"), (None, "kda_chunk_prep_tc_unbounded"),
                                              (-5.0, "kda_chunk_prep_tc2_safe"), (None, "kda_chunk_prep_tc2_unbounded"),
                                              (-5.0, "kda_chunk_prep_tc3_safe")])
def test_prep_tc_launch_arguments(tmp_path, lower_bound, name):
    """prepare_chunks_cake(kernel="kda_chunk_prep_tc") picks the build by gate and passes chunk_prep_tc.cake's
    signature (q k v g beta A_log dt_bias ROWS W QG KG U P GL scale lower_bound); poison NaN-fills the workspaces."""
    calls = []

    def recorder(q, k, v, g, beta, A_log, dt_bias, rows, W, QG, KG, U, P, GL, scale, lb):
        TT, H, K = q.shape
        TP = rows.numel()
        assert rows.dtype == torch.int32 and TP % 64 == 0
        assert W.shape == QG.shape == KG.shape == U.shape == (TP, H * 128) and P.shape == (TP, H * 64)
        assert GL.shape == (TP // 64, H * 128) and GL.dtype == torch.float32
        assert dt_bias.shape == (H, 128) and isinstance(scale, float) and isinstance(lb, float)
        assert dt_bias.data_ptr() % 16 == 0           # chunk_prep_tc2 reads it in 16-byte vectors
        assert torch.isnan(W.float()).all() and torch.isnan(GL).all()
        calls.append(TP)

    lib = kk.Kernels(str(tmp_path))
    lib._modules[name] = recorder
    T, H = 70, 2
    x = ref.make_inputs(1, T, H, 128, 128, seed=1)
    flat = lambda t: t.reshape(T, H, *t.shape[3:])  # noqa: E731
    kk.prepare_chunks_cake(lib, flat(x["q"]), flat(x["k"]), flat(x["v"]), flat(x["g"]), x["beta"].reshape(T, H),
                           x["A_log"], x["dt_bias"], lower_bound, 128 ** -0.5, torch.tensor([0, T]),
                           kernel=name.rsplit("_", 1)[0], poison=True)
    assert calls == [128]


@pytest.mark.parametrize("shift", [30.0, -30.0, 0.0])
def test_factored_diagonal_blocks_match_exact(shift):
    """chunk_prep_tc2.cake's safe-gate diagonal blocks (f32, factored through the block's middle row) equal the
    exact per-pair exponents to f32 accuracy, also with every gate at its bound (g = lower_bound = -5: factors up to
    e^40) and near 0."""
    T, H = 64 * 3, 2
    x = ref.make_inputs(1, T, H, 128, 128, seed=11)
    g = (x["g"].float() + shift).to(torch.bfloat16)
    qf, kf, gf, _ = ref.activations(x["q"].reshape(T, H, 128), x["k"].reshape(T, H, 128), g.reshape(T, H, 128),
                                    x["beta"].reshape(T, H), A_log=x["A_log"], dt_bias=x["dt_bias"],
                                    lower_bound=-5.0, dtype=torch.float32)
    chunks = lambda t: t.reshape(3, 64, H, 128).transpose(1, 2)  # noqa: E731
    kc, qc, Gc = chunks(kf), chunks(qf), chunks(gf).cumsum(2)
    exact = kk.diagonal_blocks(kc, qc, Gc)
    fact = kk.diagonal_blocks(kc, qc, Gc, factored=True)
    exact64 = kk.diagonal_blocks(kc.double(), qc.double(), Gc.double())
    for e, f, e64 in zip(exact, fact, exact64):
        assert torch.isfinite(f).all()
        assert ref.rel_error(f.double(), e64) < 1e-6
        assert ref.rel_error(e.double(), e64) < 1e-6
    if shift > 0:                               # the gate sits at its bound: the factors span e^(+-40)
        assert float((Gc[:, :, 8] - Gc[:, :, 0]).min()) < -39.0


def test_tc_model_factored_diagonal_matches_recurrence():
    T, H = 200, 1
    x = ref.make_inputs(1, T, H, 128, 128, seed=5, with_initial_state=True)
    cut = torch.tensor([0, T], dtype=torch.int64)
    flat = lambda t: t.reshape(T, H, *t.shape[3:])  # noqa: E731
    tc = kk.prepare_chunks_tc_model(flat(x["q"]), flat(x["k"]), flat(x["v"]), flat(x["g"]), x["beta"].reshape(T, H),
                                    x["A_log"], x["dt_bias"], -5.0, 128 ** -0.5, cut, factored_diagonal=True)
    o, st = kk.scan_chunks_torch(tc, (T, H, 128), cut, initial_state=x["initial_state"], state_v_first=False)
    o_ref, s_ref = ref.kda_forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                   dt_bias=x["dt_bias"], lower_bound=-5.0, scale=128 ** -0.5,
                                   initial_state=x["initial_state"], state_v_first=False, method="recurrent")
    assert ref.rel_error(o.reshape(o_ref.shape), o_ref) < 1e-2
    assert ref.rel_error(st, s_ref) < 1e-2


def test_prep_refuses_a_gate_bound_below_minus_5(tmp_path):
    """The safe-gate preps rely on g >= lower_bound >= -5 (chunk_prep_tc2's factored diagonal blocks)."""
    lib = kk.Kernels(str(tmp_path))
    lib._modules["kda_chunk_prep_tc2_safe"] = lambda *a: pytest.fail("launched with lower_bound < -5")
    T, H = 64, 1
    x = ref.make_inputs(1, T, H, 128, 128, seed=2)
    flat = lambda t: t.reshape(T, H, *t.shape[3:])  # noqa: E731
    with pytest.raises(ValueError):
        kk.prepare_chunks_cake(lib, flat(x["q"]), flat(x["k"]), flat(x["v"]), flat(x["g"]), x["beta"].reshape(T, H),
                               x["A_log"], x["dt_bias"], -6.0, 128 ** -0.5, torch.tensor([0, T]),
                               kernel="kda_chunk_prep_tc2")


def test_tc3_serves_the_unbounded_gate_with_tc2(tmp_path):
    """chunk_prep_tc3.cake is built for the safe gate only: kernel="kda_chunk_prep_tc3" with lower_bound None
    launches chunk_prep_tc2's unbounded build (exact exponents per pair) with the same arguments."""
    launched = []
    lib = kk.Kernels(str(tmp_path))
    lib._modules["kda_chunk_prep_tc2_unbounded"] = lambda *a: launched.append("tc2_unbounded")
    lib._modules["kda_chunk_prep_tc3_safe"] = lambda *a: launched.append("tc3_safe")
    T, H = 64, 1
    x = ref.make_inputs(1, T, H, 128, 128, seed=2)
    flat = lambda t: t.reshape(T, H, *t.shape[3:])  # noqa: E731
    for lower_bound in (None, -5.0):
        kk.prepare_chunks_cake(lib, flat(x["q"]), flat(x["k"]), flat(x["v"]), flat(x["g"]), x["beta"].reshape(T, H),
                               x["A_log"], x["dt_bias"], lower_bound, 128 ** -0.5, torch.tensor([0, T]),
                               kernel="kda_chunk_prep_tc3")
    assert launched == ["tc2_unbounded", "tc3_safe"]
