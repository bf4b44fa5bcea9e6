"""cakeir.kda.kernels: the op's argument handling on CPU tensors, with the cubin launch replaced by a recorder that
checks every argument against kernels/kda/recurrent.cake's signature (dtype, shape, shared shape variables,
requires), and the choice of build (gate, state layout, state or not, K = V = 128 or 64).  The kernel's numbers
are checked on the GPU by bench/kda_check.py.  Needs torch (CPU); skipped without it."""

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable (put a torch install on PYTHONPATH to run "
                                            "the cakeir.kda tests)")

from cakeir.kda import kernels as kk  # noqa: E402
from cakeir.kda import reference as ref  # noqa: E402


class Recorder:
    """Stands for one kda_recurrent build: checks the arguments as the runtime would (recurrent.cake's header)."""

    def __init__(self, name, calls):
        self.name, self.calls = name, calls

    def __call__(self, q, k, v, g, beta, A_log, dt_bias, h0, ht, o, cu, scale, lower_bound):
        TT, H, KD = q.shape
        assert KD == (64 if self.name.endswith("_k64") else 128)
        assert k.shape == g.shape == q.shape and v.shape == (TT, H, KD) and o.shape == (TT, H, KD)
        assert beta.shape == (TT, H) and A_log.shape == (H,) and dt_bias.shape == (H, KD)
        for t in (q, k, v, g, beta, o):
            assert t.dtype == torch.bfloat16 and t.is_contiguous()
        for t in (A_log, dt_bias, h0, ht):
            assert t.dtype == torch.float32 and t.is_contiguous()
        assert cu.dtype == torch.int64 and cu.dim() == 1 and cu.numel() >= 2 and TT >= 1
        N = cu.numel() - 1
        state = "_nostate" not in self.name
        assert h0.shape[1:] == ht.shape[1:] == (H, KD, KD)
        if state:
            assert h0.shape[0] == N and ht.shape[0] == N
        assert isinstance(scale, float) and isinstance(lower_bound, float)
        self.calls.append((self.name, N, TT, H))
        o.zero_()
        ht.fill_(1.0) if state else None


@pytest.fixture
def lib(tmp_path, monkeypatch):
    calls = []
    lib = kk.Kernels(str(tmp_path))
    monkeypatch.setattr(lib, "_kernel", lambda name: Recorder(name, calls))
    lib.calls = calls
    return lib


def args(B, T, H, seed=0, N=None, K=128):
    x = ref.make_inputs(B, T, H, K, K, seed=seed, with_initial_state=True, num_states=N)
    return x


@pytest.mark.parametrize("lower_bound,v_first,h0,ht,K,name", [
    (-5.0, True, True, True, 128, "kda_recurrent_safe_vfirst"),
    (None, False, True, True, 128, "kda_recurrent_unbounded_kfirst"),
    (-5.0, True, False, False, 128, "kda_recurrent_safe_vfirst_nostate"),
    (-5.0, False, False, True, 128, "kda_recurrent_safe_kfirst"),
    (None, True, True, False, 128, "kda_recurrent_unbounded_vfirst"),
    (-5.0, True, True, True, 64, "kda_recurrent_safe_vfirst_k64"),
    (None, False, False, False, 64, "kda_recurrent_unbounded_kfirst_nostate_k64"),
])
def test_build_choice_and_arguments(lib, lower_bound, v_first, h0, ht, K, name):
    x = args(2, 9, 3, K=K)
    o, s = lib.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                       lower_bound=lower_bound, initial_state=x["initial_state"] if h0 else None,
                       output_final_state=ht, state_v_first=v_first)
    assert lib.calls == [(name, 2, 18, 3)]
    assert o.shape == (2, 9, 3, K) and o.dtype == torch.bfloat16
    assert (s is None) == (not ht)
    if ht:
        assert s.shape == (2, 3, K, K) and bool((s == 1.0).all())


def test_varlen_offsets_are_checked(lib):
    x = args(1, 10, 2, N=3)
    cu = torch.tensor([0, 4, 4, 10])
    lib.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                lower_bound=-5.0, initial_state=x["initial_state"], output_final_state=True, cu_seqlens=cu)
    assert lib.calls == [("kda_recurrent_safe_kfirst", 3, 10, 2)]
    for bad in ([0, 5, 4, 10], [0, 4, 9], [1, 4, 10]):
        with pytest.raises(ValueError):
            lib.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                        lower_bound=-5.0, cu_seqlens=torch.tensor(bad))


def test_refusals_and_empty_input(lib):
    x = args(1, 4, 2)
    with pytest.raises(ValueError):       # the safe gate's bound
        lib.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                    lower_bound=-6.0)
    with pytest.raises(TypeError):        # the state layout is [N, H, K, V] unless state_v_first
        lib.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                    lower_bound=-5.0, initial_state=x["initial_state"][:, :1])
    with pytest.raises(TypeError):
        lib.forward(x["q"].float(), x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"])
    w = args(1, 4, 2, K=96)               # K = V = 128 or 64 only
    with pytest.raises(ValueError, match="64 or 128"):
        lib.forward(w["q"], w["k"], w["v"], w["g"], w["beta"], A_log=w["A_log"], dt_bias=w["dt_bias"])
    # no tokens: no launch, the state passes through
    e = args(1, 0, 2)
    o, s = lib.forward(e["q"], e["k"], e["v"], e["g"], e["beta"], A_log=e["A_log"], dt_bias=e["dt_bias"],
                       lower_bound=-5.0, initial_state=x["initial_state"], output_final_state=True)
    assert lib.calls == [] and o.shape == (1, 0, 2, 128) and torch.equal(s, x["initial_state"])


@pytest.mark.parametrize("lens,lower_bound,v_first", [
    ([70, 70], -5.0, True),
    ([0, 1, 64, 65, 0, 130, 17], -5.0, False),
    ([129], None, True),
])
def test_chunk_workspaces_reproduce_the_recurrence(lens, lower_bound, v_first):
    # prepare_chunks (the scaffold for kernel 1) + a step-for-step torch model of kda_chunk_scan == the float64
    # token recurrence, within the bf16 rounding of the workspaces (fla's own error is ~4e-3 on the bench's cases)
    T = sum(lens)
    cu = torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), dtype=torch.long)
    x = ref.make_inputs(1, T, 2, 128, 128, seed=len(lens), with_initial_state=True, num_states=len(lens))
    h0 = x["initial_state"].transpose(-1, -2).contiguous() if v_first else x["initial_state"]
    prep = kk.prepare_chunks(x["q"][0], x["k"][0], x["v"][0], x["g"][0], x["beta"][0], x["A_log"], x["dt_bias"],
                             lower_bound, 128 ** -0.5, cu)
    assert prep["NCT"] == sum((n + 63) // 64 for n in lens) and prep["W"].shape == (prep["NCT"] * 64, 256)
    assert int(prep["CO"][-1]) == prep["NCT"]
    o, s = kk.scan_chunks_torch(prep, (T, 2, 128), cu, initial_state=h0, state_v_first=v_first)
    o_ref, s_ref = ref.kda_forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                                   lower_bound=lower_bound, initial_state=h0, cu_seqlens=cu, state_v_first=v_first)
    assert ref.rel_error(o, o_ref[0]) < 5e-3          # measured: 2.4e-3 / 2.3e-3 / 2.4e-3
    assert ref.rel_error(s, s_ref) < 5e-3


@pytest.mark.parametrize("wg,varlen,v_first,state,name", [
    (1, False, True, True, "kda_chunk_scan_vfirst"),
    (2, False, True, True, "kda_chunk_scan_wg2_vfirst"),
    (2, True, False, True, "kda_chunk_scan_wg2_kfirst_varlen"),
    (2, False, True, False, "kda_chunk_scan_wg2_vfirst_nostate"),
])
def test_scan_build_choice(tmp_path, monkeypatch, wg, varlen, v_first, state, name):
    """forward_chunked(scan_wg=2) launches chunk_scan.cake's WG = 2 builds (bench/kda_build.sh's
    kda_chunk_scan_wg2_*) with the same arguments as the one-warpgroup builds; other counts are refused."""
    calls = []

    def recorder(W, QG, KG, P, U, GL, h0, ht, O, cu, CO):
        TP, HK = W.shape
        assert QG.shape == KG.shape == U.shape == (TP, HK) and P.shape == (TP, HK // 2) and TP % 64 == 0
        assert GL.shape == (TP // 64, HK) and cu.dtype == torch.int64 and O.shape[1] == HK
        calls.append(name_seen[-1])

    name_seen = []
    lib = kk.Kernels(str(tmp_path))
    monkeypatch.setattr(lib, "_kernel", lambda n, entry: (name_seen.append(n), recorder)[1])
    lens = [70, 5] if varlen else [70, 70]
    x = args(1, sum(lens), 2, N=2)
    cu = torch.tensor([0, lens[0], sum(lens)]) if varlen else None
    B, T = (1, sum(lens)) if varlen else (2, 70)
    q, k, v, g, beta = (x[n].reshape(B, T, *x[n].shape[2:]) for n in ("q", "k", "v", "g", "beta"))
    h0 = x["initial_state"] if state else None
    if h0 is not None and v_first:
        h0 = h0.transpose(-1, -2).contiguous()
    kk.forward_chunked(lib, q, k, v, g, beta, A_log=x["A_log"], dt_bias=x["dt_bias"], lower_bound=-5.0,
                       initial_state=h0, output_final_state=state, cu_seqlens=cu, state_v_first=v_first,
                       prep="torch", scan_wg=wg)
    assert calls == [name]
    with pytest.raises(ValueError):
        kk.forward_chunked(lib, q, k, v, g, beta, A_log=x["A_log"], dt_bias=x["dt_bias"], lower_bound=-5.0,
                           cu_seqlens=cu, prep="torch", scan_wg=3)
