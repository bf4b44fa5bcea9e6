"""cakeir.kda.reference: the float64 chunked (UT / WY) form of KDA equals the float64 token recurrence (the
ground truth the kernels of kernels/kda/ and their peers are measured against in bench/kda_bench.py), with the
fused activations, both gates at both bounds, scale, initial / final state in both layouts, GVA and varlen
batches with empty and one-token sequences.  Seeds are fixed (each test names its seed: a failure replays).

Needs torch (CPU is enough); skipped when torch cannot be imported."""

import math

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable (put a torch install on PYTHONPATH to run "
                                            "the cakeir.kda tests)")

from cakeir.kda import reference as ref  # noqa: E402

TOL = 1e-10  # float64: both forms agree to rounding; a wrong term (a missed decay, an off-by-one) is >= 1e-3


def run(inputs, method, **kw):
    x = dict(inputs)
    args = [x.pop(n) for n in ("q", "k", "v", "g", "beta")]
    if "initial_state" in x and "initial_state" not in kw:
        kw["initial_state"] = x.pop("initial_state")
    x.pop("initial_state", None)
    return ref.kda_forward(*args, A_log=x["A_log"], dt_bias=x["dt_bias"], method=method, **kw)


def assert_same(a, b, tol=TOL):
    for got, want in zip(a, b):
        assert got.shape == want.shape
        err = ref.rel_error(got, want)
        assert err < tol, "relative error %.3e" % err


@pytest.mark.parametrize("T", [1, 15, 17, 130])
@pytest.mark.parametrize("lower_bound", [None, -5.0])
def test_chunked_equals_recurrence(T, lower_bound):
    x = ref.make_inputs(2, T, 2, 16, 8, seed=T, with_initial_state=True)
    kw = dict(lower_bound=lower_bound, scale=0.3)
    rec = run(x, "recurrent", **kw)
    for chunk in (16, 64):
        assert_same(run(x, "chunked", chunk_size=chunk, **kw), rec)


def test_head_dim_128_and_gva():
    # K = V = 128 as the kernels run it, with grouped value heads (HV = 2 H)
    x = ref.make_inputs(1, 70, 1, 128, 128, HV=2, seed=7, with_initial_state=True)
    rec = run(x, "recurrent", lower_bound=-5.0)
    assert rec[0].shape == (1, 70, 2, 128) and rec[1].shape == (1, 2, 128, 128)
    assert_same(run(x, "chunked", lower_bound=-5.0), rec)


@pytest.mark.parametrize("lower_bound", [None, -5.0])
@pytest.mark.parametrize("shift", [-30.0, 30.0])
def test_gates_at_their_bounds(lower_bound, shift):
    # shift -30: no decay (g -> 0); +30: the strongest decay (safe gate -> lower_bound; unbounded gate
    # -> about -30 e^A per step, so e^(G) underflows within a chunk and only masked exponents keep it finite)
    x = ref.make_inputs(1, 130, 2, 16, 8, seed=11, gate_shift=shift, with_initial_state=True)
    q, k, g, beta = ref.activations(x["q"], x["k"], x["g"], x["beta"], A_log=x["A_log"],
                                    dt_bias=x["dt_bias"], lower_bound=lower_bound)
    if lower_bound is not None:
        assert bool((g >= lower_bound).all()) and bool((g <= 0).all())
        bound = lower_bound if shift > 0 else 0.0
        assert float((g - bound).abs().max()) < 1e-9
    elif shift < 0:
        assert float(g.abs().max()) < 1e-9
    else:
        assert float(g.max()) < -20
    rec = run(x, "recurrent", lower_bound=lower_bound)
    chk = run(x, "chunked", lower_bound=lower_bound)
    assert all(bool(torch.isfinite(t).all()) for t in rec + chk)
    assert_same(chk, rec)


def test_varlen_with_empty_and_one_token_sequences():
    lens = [0, 1, 17, 0, 64, 65, 3]
    cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), dtype=torch.long)
    N, T = len(lens), sum(lens)
    x = ref.make_inputs(1, T, 2, 16, 8, seed=5, with_initial_state=True, num_states=N)
    rec = run(x, "recurrent", cu_seqlens=cu, lower_bound=-5.0)
    assert_same(run(x, "chunked", cu_seqlens=cu, lower_bound=-5.0, chunk_size=16), rec)
    # each sequence alone (B = 1, its own initial state) gives the same output rows and final state
    for i in range(N):
        a, b = int(cu[i]), int(cu[i + 1])
        one = {n: (t[:, a:b] if n in ("q", "k", "v", "g", "beta") else t) for n, t in x.items()}
        one["initial_state"] = x["initial_state"][i:i + 1]
        o1, s1 = run(one, "recurrent", lower_bound=-5.0)
        assert torch.equal(o1, rec[0][:, a:b])
        assert torch.equal(s1, rec[1][i:i + 1])
    # an empty sequence passes its initial state through unchanged
    assert torch.equal(rec[1][0], x["initial_state"][0].double())


def test_state_passing_equals_one_pass_and_v_first_layout():
    x = ref.make_inputs(2, 100, 2, 16, 8, seed=3, with_initial_state=True)
    whole = run(x, "recurrent")
    first = {n: (t[:, :37] if n in ("q", "k", "v", "g", "beta") else t) for n, t in x.items()}
    rest = {n: (t[:, 37:] if n in ("q", "k", "v", "g", "beta") else t) for n, t in x.items()}
    o1, s1 = run(first, "chunked", chunk_size=16)
    rest["initial_state"] = s1
    o2, s2 = run(rest, "chunked", chunk_size=16)
    assert_same((torch.cat([o1, o2], 1), s2), whole)
    # V-first: the initial state is read as [N, HV, V, K] and the final state written so
    vf = run(x, "recurrent", initial_state=x["initial_state"].transpose(-1, -2).contiguous(), state_v_first=True)
    assert torch.equal(vf[0], whole[0]) and torch.equal(vf[1], whole[1].transpose(-1, -2))


def test_recurrence_matches_a_hand_computed_step():
    # T = 1 from a known state, all activations and the scale written out by hand
    x = ref.make_inputs(1, 1, 1, 4, 3, seed=9, with_initial_state=True)
    lb = -5.0
    q = x["q"][0, 0, 0].double()
    k = x["k"][0, 0, 0].double()
    q = q / math.sqrt(float((q * q).sum()) + 1e-6)
    k = k / math.sqrt(float((k * k).sum()) + 1e-6)
    z = math.exp(float(x["A_log"][0])) * (x["g"][0, 0, 0].double() + x["dt_bias"].double())
    alpha = torch.exp(lb / (1 + torch.exp(-z)))
    beta = 1 / (1 + math.exp(-float(x["beta"][0, 0, 0])))
    S = alpha[:, None] * x["initial_state"][0, 0].double()
    S = S + beta * torch.outer(k, x["v"][0, 0, 0].double() - S.T @ k)
    o = 0.5 * S.T @ q
    got_o, got_s = run(x, "recurrent", lower_bound=lb, scale=0.5)
    assert torch.allclose(got_o[0, 0, 0], o, rtol=1e-12, atol=1e-14)
    assert torch.allclose(got_s[0, 0], S, rtol=1e-12, atol=1e-14)


def test_a_wrong_chunked_form_is_caught():
    # the check can fail: dropping the state decay of one chunk moves the result far beyond TOL
    x = ref.make_inputs(1, 40, 1, 16, 8, seed=2, with_initial_state=True)
    rec = run(x, "recurrent", lower_bound=-5.0)
    y = dict(x)
    g = y["g"].clone()
    g[:, 20] = -30.0   # a different gate on one token (a raw gate that the kernel could misread)
    y["g"] = g
    bad = run(y, "chunked", lower_bound=-5.0, chunk_size=16)
    assert ref.rel_error(bad[0], rec[0]) > 1e-4
