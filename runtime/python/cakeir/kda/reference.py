"""Kimi Delta Attention (KDA) forward: float64 references for the CAKE kernels (kernels/kda/), their tests
(tests/python/test_kda_reference.py) and their bench (bench/kda_bench.py).

The contract is fla's `chunk_kda` (fla/ops/kda/chunk.py at bc3b101); the math is written out in
shared/reference/kda.md.  Two independent implementations of the same forward pass:

    recurrent(...)   the token recurrence, the ground truth (fla/ops/kda/naive.py `naive_recurrent_kda`):
                         S <- Diag(exp(g_t)) S;  S <- S + (beta_t k_t)(v_t - S^T k_t)^T;  o_t = S^T (scale q_t)
    chunked(...)     the chunked form with the UT/WY transform, chunk size BT (any >= 1; tail chunks shorter):
                         G = inclusive cumsum of g inside the chunk
                         L[r,s] = beta_r sum_d k_rd k_sd e^(G_rd - G_sd)  (s < r),  T = (I + L)^-1
                         w = T (beta * e^G * k),  u = T (beta * v),  v_new = u - w S
                         o = scale (q * e^G) S + P v_new,  P[r,s] = scale sum_d q_rd k_sd e^(G_rd - G_sd)  (s <= r)
                         S <- Diag(e^(G_last)) S + (k * e^(G_last - G))^T v_new

Both work in the dtype they are given (float64 here), on any device, batched over (batch, head); q/k/v/g/beta
are the *activated* tensors.  `activations(...)` applies the fused input activations of chunk_kda (q/k L2 norm,
beta sigmoid, the unbounded gate of Kimi-Linear or the lower-bounded "safe" gate of Kimi-K3 / FlashKDA), and
`kda_forward(...)` is the whole chunk_kda contract on raw inputs:

    o, final_state = kda_forward(q, k, v, g_raw, beta_raw, A_log=A_log, dt_bias=dt_bias, lower_bound=-5.0,
                                 scale=None, initial_state=None, cu_seqlens=None, state_v_first=False,
                                 method="recurrent")

Shapes: q, k [B, T, H, K]; v [B, T, HV, V] (HV % H == 0: value head h reads q/k head h // (HV // H));
g [B, T, HV, K]; beta [B, T, HV]; A_log [HV]; dt_bias [HV * K]; initial / final state [N, HV, K, V]
([N, HV, V, K] when state_v_first); cu_seqlens [N + 1] (then B == 1; empty sequences allowed).  Outputs are
in the compute dtype (float64 by default); the caller casts.

Varlen batches run as one padded batch: every sequence is padded at its end with g = 0 and beta = 0, steps that
leave the state exactly unchanged (S * e^0 = S and S + 0 * (...) = S in floating point), so the final state of
a padded sequence is bit-for-bit the state after its last real token and no padded output is read.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

L2NORM_EPS = 1e-6  # fla/modules/l2norm.py


# ------------------------------------------------------------------------------------------------ activations

def l2norm(x: torch.Tensor, eps: float = L2NORM_EPS) -> torch.Tensor:
    """x / sqrt(sum x^2 + eps) over the last dimension (fla's l2norm: eps inside the root)."""
    return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + eps)


def kda_gate(g_raw: torch.Tensor, A_log: Optional[torch.Tensor], dt_bias: Optional[torch.Tensor],
             lower_bound: Optional[float] = None) -> torch.Tensor:
    """The per-channel log-space decay g [..., HV, K] from the raw gate (fla/ops/kda/gate.py):
    unbounded (lower_bound None):  g = -exp(A_log[h]) * softplus(g_raw + dt_bias[h, :])
    safe / lower-bounded:          g = lower_bound * sigmoid(exp(A_log[h]) * (g_raw + dt_bias[h, :]))
                                   (A_log None: lower_bound * sigmoid(g_raw + dt_bias))."""
    HV, K = g_raw.shape[-2:]
    x = g_raw
    if dt_bias is not None:
        x = x + dt_bias.to(x.dtype).reshape(HV, K)
    if lower_bound is None:
        if A_log is None:
            raise ValueError("kda_gate: the unbounded gate needs A_log")
        return -A_log.to(x.dtype).reshape(HV, 1).exp() * F.softplus(x)
    if A_log is not None:
        x = A_log.to(x.dtype).reshape(HV, 1).exp() * x
    return lower_bound * torch.sigmoid(x)


def activations(q, k, g, beta, *, A_log=None, dt_bias=None, lower_bound=None, use_qk_l2norm=True,
                use_gate=True, use_beta_sigmoid=True, allow_neg_eigval=False,
                dtype: torch.dtype = torch.float64):
    """chunk_kda's fused input activations, in `dtype`: returns (q, k, g, beta) ready for recurrent/chunked."""
    q, k, g, beta = (x.to(dtype) for x in (q, k, g, beta))
    if use_qk_l2norm:
        q, k = l2norm(q), l2norm(k)
    if use_gate:
        g = kda_gate(g, A_log, dt_bias, lower_bound)
    if use_beta_sigmoid:
        beta = torch.sigmoid(beta) * (2.0 if allow_neg_eigval else 1.0)
    return q, k, g, beta


# ------------------------------------------------------------------------------------------------ the two forms

def _expand_heads(q, k, HV):
    group = HV // q.shape[2]
    if group == 1:
        return q, k
    return q.repeat_interleave(group, dim=2), k.repeat_interleave(group, dim=2)


def recurrent(q, k, v, g, beta, scale: float, initial_state: Optional[torch.Tensor] = None
              ) -> Tuple[torch.Tensor, torch.Tensor]:
    """The token recurrence on activated inputs [B, T, ...]; initial_state [B, HV, K, V] (K-first) or None.
    Returns o [B, T, HV, V] and the final state [B, HV, K, V]."""
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    q, k = _expand_heads(q, k, HV)
    S = torch.zeros(B, HV, K, V, dtype=q.dtype, device=q.device)
    if initial_state is not None:
        S = S + initial_state.to(q.dtype)
    o = torch.empty(B, T, HV, V, dtype=q.dtype, device=q.device)
    alpha = g.exp()
    for t in range(T):
        S = S * alpha[:, t, :, :, None]
        k_t = k[:, t]                                                  # [B, HV, K]
        residual = v[:, t] - torch.einsum("bhk,bhkv->bhv", k_t, S)    # v_t - S^T k_t
        S = S + (beta[:, t, :, None] * k_t)[..., None] * residual[:, :, None, :]
        o[:, t] = scale * torch.einsum("bhk,bhkv->bhv", q[:, t], S)
    return o, S


def chunked(q, k, v, g, beta, scale: float, initial_state: Optional[torch.Tensor] = None, chunk_size: int = 64
            ) -> Tuple[torch.Tensor, torch.Tensor]:
    """The chunked (UT / WY) form on activated inputs; same contract as `recurrent`.  The last chunk of a
    sequence may be shorter than chunk_size.  Exponents are masked before exp, so no e^(positive) is formed."""
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    q, k = _expand_heads(q, k, HV)
    dt, dev = q.dtype, q.device
    S = torch.zeros(B, HV, K, V, dtype=dt, device=dev)
    if initial_state is not None:
        S = S + initial_state.to(dt)
    o = torch.empty(B, T, HV, V, dtype=dt, device=dev)
    for start in range(0, T, chunk_size):
        end = min(start + chunk_size, T)
        n = end - start
        # [B, HV, n, ...]
        qc, kc, vc, gc = (x[:, start:end].transpose(1, 2) for x in (q, k, v, g))
        bc = beta[:, start:end].transpose(1, 2)                        # [B, HV, n]
        G = gc.cumsum(-2)                                              # inclusive cumsum, reset every chunk
        diff = G[..., :, None, :] - G[..., None, :, :]                 # [B, HV, r, s, K] = G_r - G_s
        rows = torch.arange(n, device=dev)
        strict = (rows[:, None] > rows[None, :])[..., None]           # s < r
        causal = (rows[:, None] >= rows[None, :])[..., None]          # s <= r
        decay_strict = torch.where(strict, diff, torch.full_like(diff, -math.inf)).exp()
        decay_causal = torch.where(causal, diff, torch.full_like(diff, -math.inf)).exp()
        L = bc[..., :, None] * torch.einsum("bhrd,bhsd,bhrsd->bhrs", kc, kc, decay_strict)
        P = scale * torch.einsum("bhrd,bhsd,bhrsd->bhrs", qc, kc, decay_causal)
        eye = torch.eye(n, dtype=dt, device=dev).expand(B, HV, n, n)
        Tinv = torch.linalg.solve_triangular(eye + L, eye, upper=False, unitriangular=True)  # (I + L)^-1
        eG = G.exp()
        w = Tinv @ (bc[..., None] * eG * kc)                          # [B, HV, n, K]
        u = Tinv @ (bc[..., None] * vc)                                # [B, HV, n, V]
        v_new = u - w @ S                                              # pseudo-values
        o[:, start:end] = (scale * (qc * eG) @ S + P @ v_new).transpose(1, 2)
        G_last = G[..., -1:, :]                                        # [B, HV, 1, K]
        kg = kc * (G_last - G).exp()                                   # keys decayed to the chunk's end
        S = G_last.transpose(-1, -2).exp() * S + kg.transpose(-1, -2) @ v_new
    return o, S


# ------------------------------------------------------------------------------------------------ the contract

def _pad_varlen(x: torch.Tensor, cu: Sequence[int], tmax: int) -> torch.Tensor:
    """[1, T_total, ...] -> [N, tmax, ...] zero-padded at each sequence's end."""
    N = len(cu) - 1
    out = torch.zeros((N, tmax) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    for i in range(N):
        out[i, :cu[i + 1] - cu[i]] = x[0, cu[i]:cu[i + 1]]
    return out


def _unpad_varlen(x: torch.Tensor, cu: Sequence[int]) -> torch.Tensor:
    return torch.cat([x[i, :cu[i + 1] - cu[i]] for i in range(len(cu) - 1)], dim=0).unsqueeze(0)


def kda_forward(q, k, v, g, beta, *, A_log=None, dt_bias=None, lower_bound: Optional[float] = None,
                scale: Optional[float] = None, initial_state: Optional[torch.Tensor] = None,
                cu_seqlens=None, state_v_first: bool = False, use_qk_l2norm: bool = True,
                use_gate: bool = True, use_beta_sigmoid: bool = True, allow_neg_eigval: bool = False,
                method: str = "recurrent", chunk_size: int = 64, dtype: torch.dtype = torch.float64
                ) -> Tuple[torch.Tensor, torch.Tensor]:
    """fla chunk_kda's forward on raw inputs, computed in `dtype` on the inputs' device.
    method: "recurrent" (ground truth) or "chunked".  Returns (o [B, T, HV, V], final_state [N, HV, K, V]
    or [N, HV, V, K] when state_v_first), both in `dtype`."""
    if method not in ("recurrent", "chunked"):
        raise ValueError("kda_forward: method must be 'recurrent' or 'chunked', got %r" % (method,))
    K = q.shape[-1]
    if scale is None:
        scale = K ** -0.5
    q, k, g, beta = activations(q, k, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound,
                                use_qk_l2norm=use_qk_l2norm, use_gate=use_gate,
                                use_beta_sigmoid=use_beta_sigmoid, allow_neg_eigval=allow_neg_eigval,
                                dtype=dtype)
    v = v.to(dtype)
    h0 = None
    if initial_state is not None:
        h0 = initial_state.to(dtype)
        if state_v_first:
            h0 = h0.transpose(-1, -2)
    def run(q_, k_, v_, g_, beta_, scale_, h0_):
        if method == "recurrent":
            return recurrent(q_, k_, v_, g_, beta_, scale_, h0_)
        return chunked(q_, k_, v_, g_, beta_, scale_, h0_, chunk_size=chunk_size)
    if cu_seqlens is None:
        o, S = run(q, k, v, g, beta, scale, h0)
    else:
        if q.shape[0] != 1:
            raise ValueError("kda_forward: cu_seqlens needs B == 1, got B = %d" % q.shape[0])
        cu = [int(c) for c in cu_seqlens.tolist()]
        if cu[0] != 0 or cu[-1] != q.shape[1] or any(b < a for a, b in zip(cu, cu[1:])):
            raise ValueError("kda_forward: cu_seqlens %r does not partition T = %d" % (cu, q.shape[1]))
        tmax = max([b - a for a, b in zip(cu, cu[1:])] + [0])
        pq, pk, pv, pg, pb = (_pad_varlen(x, cu, tmax) for x in (q, k, v, g, beta))   # padding: g = 0, beta = 0
        o, S = run(pq, pk, pv, pg, pb, scale, h0)
        o = _unpad_varlen(o, cu) if tmax > 0 else o.new_zeros((1, 0) + tuple(o.shape[2:]))
    if state_v_first:
        S = S.transpose(-1, -2).contiguous()
    return o, S


# ------------------------------------------------------------------------------------------------ inputs, errors

def make_inputs(B: int, T: int, H: int, K: int, V: int, *, HV: Optional[int] = None, seed: int = 0,
                dtype: torch.dtype = torch.bfloat16, device="cpu", gate_shift: float = 0.0,
                with_initial_state: bool = False, num_states: Optional[int] = None):
    """Seeded raw inputs in chunk_kda's contract (the FlashKDA bench's distribution: q, k, v, g_raw, beta_raw
    ~ N(0, 1), A_log, dt_bias ~ U(0, 1)).  gate_shift is added to g_raw (large positive: the gates sit at
    their strong-decay bound; large negative: near no decay).  Returns a dict of tensors on `device`; the
    initial state (fp32, [N, HV, K, V]) is included when asked, N = num_states or B."""
    HV = HV or H
    gen = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=gen)  # noqa: E731
    out = {
        "q": r(B, T, H, K).to(dtype), "k": r(B, T, H, K).to(dtype), "v": r(B, T, HV, V).to(dtype),
        "g": (r(B, T, HV, K) + gate_shift).to(dtype), "beta": r(B, T, HV).to(dtype),
        "A_log": torch.rand(HV, generator=gen), "dt_bias": torch.rand(HV * K, generator=gen),
    }
    if with_initial_state:
        out["initial_state"] = r(num_states or B, HV, K, V)
    return {name: t.to(device) for name, t in out.items()}


def rel_error(got: torch.Tensor, ref: torch.Tensor) -> float:
    """||got - ref||_F / ||ref||_F in float64 (0 when both are zero)."""
    got, ref = got.double(), ref.double().to(got.device)
    den = ref.norm().item()
    num = (got - ref).norm().item()
    return num / den if den > 0 else num
