"""The CAKE KDA forward as a torch custom operator with fla's calling convention, and a drop-in backend for fla's
KimiDeltaAttention layer.

    from cakeir.kda import ops
    o, ht = ops.chunk_kda(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=-5.0,
                          initial_state=h0, output_final_state=True, state_v_first=True,
                          use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True, use_beta_sigmoid_in_kernel=True)
    with ops.fla_backend():            # fla.layers.kda's chunk_kda / fused_recurrent_kda -> these
        y = layer(hidden_states)

`cakeir::kda_forward` (torch.library.custom_op; torch.compile traces it through its fake implementation) runs
on CUDA tensors the kernels of default_kernels() ($CAKE_KDA_CUBINS, bench/kda_build.sh's builds): method
"chunked" = kernels/kda/chunk_prep_tc3.cake (safe gate; chunk_prep_tc2.cake for the unbounded gate) +
chunk_scan.cake with its warpgroups chosen by shape; "recurrent" = kernels/kda/recurrent.cake (the token
recurrence, for decoding a few tokens, and for K = V = 64, which the chunked kernels do not take).  On CPU tensors
it runs the float64 token recurrence of cakeir.kda.reference (the oracle), returning the same dtypes.

The subset of fla's chunk_kda contract served: K = V = 128 or 64, as many value heads as query / key heads, the
gate, the q / k L2 norm and the beta sigmoid computed in the kernel (use_*_in_kernel = True), lower_bound in [-5, 0)
(the safe gate of Kimi-K3 / FlashKDA; fla's safe_gate flag changes nothing else here) or None (the unbounded gate
of Kimi-Linear), no negative eigenvalues; anything else raises ValueError rather than computing something else.
Inputs of another float dtype are converted to bf16, o comes back in v's dtype."""

import contextlib
import importlib
import os
from typing import Any, Dict, Iterator, Optional, Tuple

import torch

from . import kernels as kk
from . import reference as ref

_DEFAULT: Dict[str, kk.Kernels] = {}


def default_kernels() -> kk.Kernels:
    """The Kernels of $CAKE_KDA_CUBINS (loaded once)."""
    folder = os.environ.get("CAKE_KDA_CUBINS", "")
    if folder not in _DEFAULT:
        _DEFAULT[folder] = kk.Kernels(folder)
    return _DEFAULT[folder]


def _state_shape(q: torch.Tensor, v: torch.Tensor, n: int, state_v_first: bool) -> Tuple[int, int, int, int]:
    H, K, V = q.shape[2], q.shape[3], v.shape[3]
    return (n, H, V, K) if state_v_first else (n, H, K, V)


def _num_states(q: torch.Tensor, cu_seqlens: Optional[torch.Tensor]) -> int:
    return q.shape[0] if cu_seqlens is None else cu_seqlens.shape[0] - 1


@torch.library.custom_op("cakeir::kda_forward", mutates_args=(), device_types="cuda")
def kda_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, g: torch.Tensor, beta: torch.Tensor,
                A_log: torch.Tensor, dt_bias: torch.Tensor, initial_state: Optional[torch.Tensor],
                cu_seqlens: Optional[torch.Tensor], scale: float, lower_bound: Optional[float],
                output_final_state: bool, state_v_first: bool, method: str) -> Tuple[torch.Tensor, torch.Tensor]:
    """(o bf16 [B, T, H, V], final state f32 [N, H, V, K] / [N, H, K, V] or an empty tensor when not asked).
    q, k, g [B, T, H, K], v [B, T, H, V], beta [B, T, H] bf16 contiguous with K = V = 128 or 64; method "chunked"
    or "recurrent" (K = V = 64: always the recurrent kernel)."""
    lib = default_kernels()
    if method == "recurrent" or q.shape[-1] != kk.HEAD_DIM:
        o, ht = lib.forward(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound, scale=scale,
                            initial_state=initial_state, output_final_state=output_final_state,
                            cu_seqlens=cu_seqlens, state_v_first=state_v_first)
    else:
        o, ht = kk.forward_chunked(lib, q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound,
                                   scale=scale, initial_state=initial_state, output_final_state=output_final_state,
                                   cu_seqlens=cu_seqlens, state_v_first=state_v_first, prep="cake_tc3",
                                   scan_wg="auto")
    return o, (ht if ht is not None else q.new_empty((0,), dtype=torch.float32))


@kda_forward.register_kernel("cpu")
def _kda_forward_cpu(q, k, v, g, beta, A_log, dt_bias, initial_state, cu_seqlens, scale, lower_bound,
                     output_final_state, state_v_first, method):
    o, ht = ref.kda_forward(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound, scale=scale,
                            initial_state=initial_state, cu_seqlens=cu_seqlens, state_v_first=state_v_first,
                            method="recurrent")
    return o.to(torch.bfloat16), (ht.float() if output_final_state else q.new_empty((0,), dtype=torch.float32))


@kda_forward.register_fake
def _kda_forward_fake(q, k, v, g, beta, A_log, dt_bias, initial_state, cu_seqlens, scale, lower_bound,
                      output_final_state, state_v_first, method):
    o = v.new_empty(v.shape, dtype=torch.bfloat16)
    if not output_final_state:
        return o, q.new_empty((0,), dtype=torch.float32)
    return o, q.new_empty(_state_shape(q, v, _num_states(q, cu_seqlens), state_v_first), dtype=torch.float32)


def _check_contract(q, k, v, g, beta, A_log, dt_bias, lower_bound, use_qk_l2norm_in_kernel, use_gate_in_kernel,
                    use_beta_sigmoid_in_kernel, allow_neg_eigval, unsupported: Dict[str, Any]) -> None:
    """ValueError for what fla's chunk_kda accepts but these kernels do not compute."""
    if not (use_qk_l2norm_in_kernel and use_gate_in_kernel and use_beta_sigmoid_in_kernel):
        raise ValueError("cakeir.kda: the kernels compute the q / k L2 norm, the gate and the beta sigmoid "
                         "themselves: use_qk_l2norm_in_kernel, use_gate_in_kernel and "
                         "use_beta_sigmoid_in_kernel must be True")
    if allow_neg_eigval:
        raise ValueError("cakeir.kda: allow_neg_eigval is not supported")
    for name, value in unsupported.items():
        if name in ("safe_gate", "disable_recompute", "cu_seqlens_cpu") or value is None or value is False:
            continue
        raise ValueError("cakeir.kda: %s=%r is not supported" % (name, value))
    if A_log is None or dt_bias is None:
        raise ValueError("cakeir.kda: the in-kernel gate needs A_log and dt_bias")
    if q.dim() != 4 or v.dim() != 4 or q.shape[-1] != v.shape[-1] or q.shape[-1] not in kk.RECURRENT_HEAD_DIMS:
        raise ValueError("cakeir.kda: q, k, g [B, T, H, K] and v [B, T, H, V] with K = V = 128 or 64 only "
                         "(got q %s, v %s)" % (tuple(q.shape), tuple(v.shape)))
    if v.shape[2] != q.shape[2] or g.shape != q.shape or k.shape != q.shape or beta.shape != q.shape[:3]:
        raise ValueError("cakeir.kda: q, k, g must share [B, T, H, K], v [B, T, H, V] and beta [B, T, H] "
                         "(grouped value heads are not supported)")
    if lower_bound is not None and not (-5.0 <= lower_bound < 0.0):
        raise ValueError("cakeir.kda: lower_bound must lie in [-5, 0) or be None, got %r" % (lower_bound,))


def _forward(method, q, k, v, g, beta, scale, initial_state, output_final_state, use_qk_l2norm_in_kernel,
             use_gate_in_kernel, use_beta_sigmoid_in_kernel, allow_neg_eigval, lower_bound, state_v_first,
             cu_seqlens, A_log, dt_bias, unsupported):
    _check_contract(q, k, v, g, beta, A_log, dt_bias, lower_bound, use_qk_l2norm_in_kernel, use_gate_in_kernel,
                    use_beta_sigmoid_in_kernel, allow_neg_eigval, unsupported)
    bf = lambda t: t.to(torch.bfloat16).contiguous()  # noqa: E731
    h0 = initial_state.float().contiguous() if initial_state is not None else None
    o, ht = kda_forward(bf(q), bf(k), bf(v), bf(g), bf(beta), A_log.float().contiguous(),
                        dt_bias.float().contiguous(), h0, cu_seqlens, float(scale if scale is not None
                                                                             else q.shape[-1] ** -0.5),
                        None if lower_bound is None else float(lower_bound), bool(output_final_state),
                        bool(state_v_first), method)
    return o.to(v.dtype), (ht if output_final_state else None)


def chunk_kda(q, k, v, g, beta, scale=None, initial_state=None, output_final_state=False,
              use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
              allow_neg_eigval=False, lower_bound=None, state_v_first=False, cu_seqlens=None, A_log=None,
              dt_bias=None, **unsupported):
    """fla.ops.kda.chunk_kda's forward (the subset in the module docstring) on the chunked CAKE kernels:
    (o, final state or None)."""
    return _forward("chunked", q, k, v, g, beta, scale, initial_state, output_final_state,
                    use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel, allow_neg_eigval,
                    lower_bound, state_v_first, cu_seqlens, A_log, dt_bias, unsupported)


def fused_recurrent_kda(q, k, v, g, beta, scale=None, initial_state=None, output_final_state=False,
                        use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False, use_beta_sigmoid_in_kernel=False,
                        allow_neg_eigval=False, lower_bound=None, state_v_first=False, cu_seqlens=None, A_log=None,
                        dt_bias=None, **unsupported):
    """fla.ops.kda.fused_recurrent_kda's forward on kernels/kda/recurrent.cake (decoding: a few tokens a call)."""
    return _forward("recurrent", q, k, v, g, beta, scale, initial_state, output_final_state,
                    use_qk_l2norm_in_kernel, use_gate_in_kernel, use_beta_sigmoid_in_kernel, allow_neg_eigval,
                    lower_bound, state_v_first, cu_seqlens, A_log, dt_bias, unsupported)


@contextlib.contextmanager
def fla_backend(module: Any = None) -> Iterator[None]:
    """Within the block, fla's KimiDeltaAttention layers (module: fla.layers.kda unless given) call chunk_kda and
    fused_recurrent_kda of this module instead of fla's; the originals are restored on exit."""
    target: Any = module if module is not None else importlib.import_module("fla.layers.kda")
    saved = (target.chunk_kda, target.fused_recurrent_kda)
    target.chunk_kda, target.fused_recurrent_kda = chunk_kda, fused_recurrent_kda
    try:
        yield
    finally:
        target.chunk_kda, target.fused_recurrent_kda = saved
