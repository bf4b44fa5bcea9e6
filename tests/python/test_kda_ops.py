"""cakeir.kda.ops: the fla-compatible KDA forward as the torch custom operator cakeir::kda_forward.  On CPU tensors
the operator runs the float64 token recurrence, fake tensors its fake implementation; CUDA (the CAKE kernels) is
exercised on the device by bench/kda_layer_check.py.  Needs torch; skipped when it cannot be imported."""

import types

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable")

from cakeir.kda import ops  # noqa: E402
from cakeir.kda import reference as ref  # noqa: E402

FLAGS = dict(use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True)


def inputs(T=20, H=2, seed=3, B=1, K=128):
    x = ref.make_inputs(B, T, H, K, K, seed=seed, with_initial_state=True)
    x["initial_state"] = x["initial_state"].transpose(-1, -2).contiguous()     # V-first
    return x


@pytest.mark.parametrize("lower_bound,K", [(-5.0, 128), (None, 128), (-5.0, 64)])
def test_cpu_operator_is_the_recurrence(lower_bound, K):
    x = inputs(K=K)
    o, ht = ops.chunk_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"],
                          lower_bound=lower_bound, initial_state=x["initial_state"], output_final_state=True,
                          state_v_first=True, **FLAGS)
    o_ref, s_ref = ref.kda_forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                   dt_bias=x["dt_bias"], lower_bound=lower_bound,
                                   initial_state=x["initial_state"], state_v_first=True)
    assert o.dtype == torch.bfloat16 and o.shape == x["v"].shape
    assert ht.dtype == torch.float32 and ht.shape == (1, 2, K, K)
    assert ref.rel_error(o, o_ref) < 4e-3                       # o rounded to bf16 once
    assert ref.rel_error(ht, s_ref) < 1e-6
    o2, none = ops.fused_recurrent_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                       dt_bias=x["dt_bias"], lower_bound=lower_bound,
                                       initial_state=x["initial_state"], state_v_first=True, **FLAGS)
    assert none is None and torch.equal(o2, o)


def test_float32_inputs_come_back_in_their_dtype():
    x = inputs(T=5)
    o, _ = ops.chunk_kda(x["q"].float(), x["k"].float(), x["v"].float(), x["g"].float(), x["beta"].float(),
                         A_log=x["A_log"], dt_bias=x["dt_bias"], lower_bound=-5.0, **FLAGS)
    assert o.dtype == torch.float32


@pytest.mark.parametrize("change,match", [
    (dict(use_gate_in_kernel=False), "use_gate_in_kernel"),
    (dict(use_qk_l2norm_in_kernel=False), "L2 norm"),
    (dict(allow_neg_eigval=True), "allow_neg_eigval"),
    (dict(lower_bound=-6.0), "lower_bound"),
    (dict(return_intermediate_states=True), "return_intermediate_states"),
    (dict(A_log=None), "A_log"),
])
def test_what_the_kernels_do_not_compute_is_refused(change, match):
    x = inputs(T=4)
    kwargs = dict(FLAGS, A_log=x["A_log"], dt_bias=x["dt_bias"], lower_bound=-5.0)
    kwargs.update(change)
    with pytest.raises(ValueError, match=match):
        ops.chunk_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], **kwargs)


def test_shapes_outside_the_kernels_are_refused():
    x = ref.make_inputs(1, 4, 2, 96, 96, seed=1)
    with pytest.raises(ValueError, match="128 or 64"):
        ops.chunk_kda(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"], dt_bias=x["dt_bias"], **FLAGS)
    y = ref.make_inputs(1, 4, 2, 128, 128, HV=4, seed=1)
    with pytest.raises(ValueError, match="grouped"):
        ops.chunk_kda(y["q"], y["k"], y["v"], y["g"], y["beta"], A_log=y["A_log"], dt_bias=y["dt_bias"], **FLAGS)


@pytest.mark.parametrize("state_v_first", [True, False])
def test_fake_implementation_shapes(state_v_first):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q = torch.empty(1, 50, 3, 128, dtype=torch.bfloat16)
        v = torch.empty(1, 50, 3, 128, dtype=torch.bfloat16)
        beta = torch.empty(1, 50, 3, dtype=torch.bfloat16)
        cu = torch.tensor([0, 10, 50], dtype=torch.int64)
        o, ht = torch.ops.cakeir.kda_forward(q, q, v, q, beta, torch.empty(3), torch.empty(3 * 128), None, cu,
                                             0.1, -5.0, True, state_v_first, "chunked")
        assert o.shape == (1, 50, 3, 128) and o.dtype == torch.bfloat16
        assert ht.shape == (2, 3, 128, 128) and ht.dtype == torch.float32
        _, none = torch.ops.cakeir.kda_forward(q, q, v, q, beta, torch.empty(3), torch.empty(3 * 128), None, None,
                                               0.1, None, False, state_v_first, "chunked")
        assert none.numel() == 0


def test_compiled_graph_calls_the_operator():
    x = inputs(T=6)

    def layer(q, k, v, g, beta):
        o, _ = ops.chunk_kda(q, k, v, g, beta, A_log=x["A_log"], dt_bias=x["dt_bias"], lower_bound=-5.0, **FLAGS)
        return o.float() * 2.0

    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    args = (x["q"], x["k"], x["v"], x["g"], x["beta"])
    assert torch.equal(compiled(*args), layer(*args))


def test_fla_backend_swaps_and_restores():
    module = types.SimpleNamespace(chunk_kda="fla chunk", fused_recurrent_kda="fla recurrent")
    with ops.fla_backend(module):
        assert module.chunk_kda is ops.chunk_kda and module.fused_recurrent_kda is ops.fused_recurrent_kda
    assert module.chunk_kda == "fla chunk" and module.fused_recurrent_kda == "fla recurrent"
    with pytest.raises(RuntimeError):
        with ops.fla_backend(module):
            raise RuntimeError("inside")
    assert module.chunk_kda == "fla chunk"
