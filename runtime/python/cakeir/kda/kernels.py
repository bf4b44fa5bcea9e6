"""The CAKE KDA forward kernels (kernels/kda/) on torch tensors, with chunk_kda's signature subset.

    from cakeir.kda.kernels import Kernels
    lib = Kernels("bench/out/kda/cubins")          # the cubins of bench/kda_build.sh
    o, final_state = lib.forward(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=-5.0,
                                 scale=None, initial_state=h0, output_final_state=True,
                                 cu_seqlens=cu, state_v_first=True)

Inputs as fla's chunk_kda with use_qk_l2norm_in_kernel, use_gate_in_kernel and use_beta_sigmoid_in_kernel all
set: q, k, v, g (raw gate) bf16 [B, T, H, 128]; beta (raw) bf16 [B, T, H]; A_log f32 [H]; dt_bias f32 [H * 128]
(or [H, 128]); lower_bound None (the unbounded gate) or in [-5, 0) (the safe gate); initial_state f32
[N, H, K, V] ([N, H, V, K] when state_v_first); cu_seqlens int64 [N + 1] with B == 1.  Returns o bf16
[B, T, H, V] and the final state (f32, the initial state's layout) or None.

The kernel now is kernels/kda/recurrent.cake (the token recurrence, the correctness baseline); its builds are
named kda_recurrent_<gate>_<layout>[_nostate].cubin: gate "safe" / "unbounded", layout "vfirst" / "kfirst".
Every call launches on torch's current stream."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

import torch

from .. import load

HEAD_DIM = 128


class Kernels:
    """The KDA kernels of one folder of cubins; each module is loaded on first use."""

    def __init__(self, folder: Optional[str] = None):
        self.folder = folder or os.environ.get("CAKE_KDA_CUBINS", "")
        if not self.folder or not os.path.isdir(self.folder):
            raise FileNotFoundError("cakeir.kda: no cubin folder (give one, or set $CAKE_KDA_CUBINS): %r"
                                    % self.folder)
        self._modules: Dict[str, Any] = {}

    def _kernel(self, name: str):
        if name not in self._modules:
            path = os.path.join(self.folder, name + ".cubin")
            if not os.path.isfile(path):
                raise FileNotFoundError("cakeir.kda: %s: not built (bench/kda_build.sh)" % path)
            self._modules[name] = load(path).kernels["kda_recurrent"]
        return self._modules[name]

    def forward(self, q, k, v, g, beta, *, A_log, dt_bias, lower_bound: Optional[float] = None,
                scale: Optional[float] = None, initial_state=None, output_final_state: bool = False,
                cu_seqlens=None, state_v_first: bool = False, out=None, final_state=None,
                check_cu_seqlens: bool = True):
        """(o, final state or None).  out / final_state: optional preallocated outputs.  check_cu_seqlens
        reads cu_seqlens on the host (a synchronisation) to check that it partitions T; the kernel itself
        reads offsets modulo T + 1, so unchecked bad offsets give wrong results, never wild accesses."""
        B, T, H, K = q.shape
        V = v.shape[-1]
        if K != HEAD_DIM or V != HEAD_DIM:
            raise ValueError("cakeir.kda: K = V = %d only (got K = %d, V = %d)" % (HEAD_DIM, K, V))
        if v.shape[2] != H:
            raise ValueError("cakeir.kda: grouped value heads (HV != H) are not supported yet")
        for name, t in (("q", q), ("k", k), ("v", v), ("g", g), ("beta", beta)):
            if t.dtype != torch.bfloat16 or not t.is_contiguous():
                raise TypeError("cakeir.kda: %s must be contiguous bf16" % name)
        if lower_bound is not None and not (-5.0 <= lower_bound < 0.0):
            raise ValueError("cakeir.kda: lower_bound must lie in [-5, 0), got %r" % lower_bound)
        if scale is None:
            scale = K ** -0.5
        dev = q.device
        if cu_seqlens is None:
            cu = torch.arange(0, (B + 1) * T, T, dtype=torch.int64, device=dev) if T > 0 else \
                torch.zeros(B + 1, dtype=torch.int64, device=dev)
        else:
            if B != 1:
                raise ValueError("cakeir.kda: cu_seqlens needs B == 1, got B = %d" % B)
            cu = cu_seqlens.to(device=dev, dtype=torch.int64).contiguous()
            if check_cu_seqlens:
                host = cu.tolist()
                if host[0] != 0 or host[-1] != T or any(b < a for a, b in zip(host, host[1:])):
                    raise ValueError("cakeir.kda: cu_seqlens %r does not partition T = %d" % (host, T))
        N = cu.numel() - 1
        use_h0 = initial_state is not None
        state_shape = (N, H, V, K) if state_v_first else (N, H, K, V)
        if use_h0 and (initial_state.dtype != torch.float32 or tuple(initial_state.shape) != state_shape):
            raise TypeError("cakeir.kda: initial_state must be f32 %s" % (list(state_shape),))
        o = torch.empty(B, T, H, V, dtype=torch.bfloat16, device=dev) if out is None else out
        ht = None
        if output_final_state:
            ht = torch.empty(state_shape, dtype=torch.float32, device=dev) if final_state is None else final_state
        if B * T == 0 or N == 0:                    # nothing to run: the state passes through
            if ht is not None:
                ht.copy_(initial_state) if use_h0 else ht.zero_()
            return o, ht
        if use_h0 or output_final_state:
            variant = ""
            h0 = initial_state.contiguous() if use_h0 else torch.zeros(state_shape, dtype=torch.float32, device=dev)
            ht_arg = ht if ht is not None else torch.empty(state_shape, dtype=torch.float32, device=dev)
        else:
            variant = "_nostate"
            h0 = ht_arg = torch.empty(1, H, K, V, dtype=torch.float32, device=dev)   # not read / written
        name = "kda_recurrent_%s_%s%s" % ("unbounded" if lower_bound is None else "safe",
                                          "vfirst" if state_v_first else "kfirst", variant)
        kernel = self._kernel(name)
        a_log = A_log.to(device=dev, dtype=torch.float32).contiguous()
        dtb = dt_bias.to(device=dev, dtype=torch.float32).reshape(H, K).contiguous()
        kernel(q.reshape(B * T, H, K), k.reshape(B * T, H, K), v.reshape(B * T, H, V), g.reshape(B * T, H, K),
               beta.reshape(B * T, H), a_log, dtb, h0, ht_arg, o.view(B * T, H, V), cu, float(scale),
               float(lower_bound if lower_bound is not None else -5.0))
        return o, ht

    def make_forward(self, x: Dict[str, Any], *, lower_bound: Optional[float], scale: float):
        """A zero-argument callable for bench/kda_bench.py: the forward on the bench's inputs (V-first state,
        initial and final state), writing into outputs allocated once and NaN-poisoned here."""
        o = torch.full_like(x["v"], float("nan"))
        ht = torch.full_like(x["h0"], float("nan"))

        def fn():
            return self.forward(x["q"], x["k"], x["v"], x["g"], x["beta"], A_log=x["A_log"],
                                dt_bias=x["dt_bias"], lower_bound=lower_bound, scale=scale,
                                initial_state=x["h0"], output_final_state=True,
                                cu_seqlens=x.get("cu_seqlens"), state_v_first=True, out=o, final_state=ht,
                                check_cu_seqlens=False)
        if x.get("cu_seqlens") is not None:     # checked once here; the timed calls do not synchronise
            host = x["cu_seqlens"].tolist()
            T = x["q"].shape[1]
            if host[0] != 0 or host[-1] != T or any(b < a for a, b in zip(host, host[1:])):
                raise ValueError("cakeir.kda: cu_seqlens %r does not partition T = %d" % (host, T))
        return fn
