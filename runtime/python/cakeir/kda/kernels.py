"""The CAKE KDA forward kernels (kernels/kda/) on torch tensors, with chunk_kda's signature subset.

    from cakeir.kda.kernels import Kernels
    lib = Kernels("bench/out/kda/cubins")          # the cubins of bench/kda_build.sh
    o, final_state = lib.forward(q, k, v, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=-5.0,
                                 scale=None, initial_state=h0, output_final_state=True,
                                 cu_seqlens=cu, state_v_first=True)

Inputs as fla's chunk_kda with use_qk_l2norm_in_kernel, use_gate_in_kernel and use_beta_sigmoid_in_kernel all
set: q, k, v, g (raw gate) bf16 [B, T, H, K] with K = V = 128 (the recurrent kernel: 64 too); beta (raw) bf16
[B, T, H]; A_log f32 [H]; dt_bias f32 [H * K] (or [H, K]); lower_bound None (the unbounded gate) or in [-5, 0)
(the safe gate); initial_state f32 [N, H, K, V] ([N, H, V, K] when state_v_first); cu_seqlens int64 [N + 1]
with B == 1.  Returns o bf16 [B, T, H, V] and the final state (f32, the initial state's layout) or None.

Kernels.forward runs kernels/kda/recurrent.cake (the token recurrence, the correctness baseline); its builds are
named kda_recurrent_<gate>_<layout>[_nostate][_k64].cubin: gate "safe" / "unbounded", layout "vfirst" / "kfirst",
_k64 for K = V = 64.  forward_chunked (below) runs the chunked kernels, K = V = 128.
Every call launches on torch's current stream."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

import torch

from .. import load

HEAD_DIM = 128                      # the chunked kernels' K = V
RECURRENT_HEAD_DIMS = (64, 128)     # the recurrent kernel's


class Kernels:
    """The KDA kernels of one folder of cubins; each module is loaded on first use."""

    def __init__(self, folder: Optional[str] = None):
        self.folder = folder or os.environ.get("CAKE_KDA_CUBINS", "")
        if not self.folder or not os.path.isdir(self.folder):
            raise FileNotFoundError("cakeir.kda: no cubin folder (give one, or set $CAKE_KDA_CUBINS): %r"
                                    % self.folder)
        self._modules: Dict[str, Any] = {}

    def _kernel(self, name: str, entry: str = "kda_recurrent"):
        """Kernel `entry` of the build `name` (<folder>/<name>.cubin), loaded once."""
        if name not in self._modules:
            path = os.path.join(self.folder, name + ".cubin")
            if not os.path.isfile(path):
                raise FileNotFoundError("cakeir.kda: %s: not built (bench/kda_build.sh)" % path)
            self._modules[name] = load(path).kernels[entry]
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
        if K != V or K not in RECURRENT_HEAD_DIMS:
            raise ValueError("cakeir.kda: K = V = %s only (got K = %d, V = %d)"
                             % (" or ".join(map(str, RECURRENT_HEAD_DIMS)), K, V))
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
        name = "kda_recurrent_%s_%s%s%s" % ("unbounded" if lower_bound is None else "safe",
                                            "vfirst" if state_v_first else "kfirst", variant,
                                            "" if K == HEAD_DIM else "_k%d" % K)
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


# ------------------------------------------------------------------------------------------------ chunked form
# kernels/kda/chunk_scan.cake is the sequential half of the chunked forward.  Its chunk-local inputs (kernel 1:
# gate cumsum, L and P, (I + L)^-1, w / u) are computed here with torch on the GPU in float32 until the CAKE
# kernel for them exists: a development scaffold, so that the scan kernel can be checked end to end.  Times of
# forward_chunked include it and are no measure of a CAKE implementation; bench/kda_bench.py times the scan
# kernel on its own as "cake_scan" (the sequential half only).

CHUNK = 64

# forward_chunked's prep names -> the kernel 1 entry (its builds are <entry>_<gate>.cubin)
PREP_KERNELS = {"cake": "kda_chunk_prep", "cake_tc": "kda_chunk_prep_tc", "cake_tc2": "kda_chunk_prep_tc2",
                "cake_tc3": "kda_chunk_prep_tc3"}
# kernel 1 entries built for the safe gate only -> the entry that serves the unbounded gate in their place
SAFE_GATE_ONLY = {"kda_chunk_prep_tc3": "kda_chunk_prep_tc2"}


def chunk_layout(cu: torch.Tensor, T_total: int):
    """(CO int32 [N + 1], NCT, rows): the chunk-padded layout of sequences cu (int64 [N + 1]): sequence n's chunk c
    is padded row block CO[n] + c; rows [NCT * 64] the token row of each padded row, -1 past a sequence's end."""
    lens = (cu[1:] - cu[:-1]).clamp(min=0)
    nch = (lens + CHUNK - 1) // CHUNK
    co = torch.zeros(cu.numel(), dtype=torch.int64, device=cu.device)
    co[1:] = torch.cumsum(nch, 0)
    nct = int(co[-1])
    if nct == 0:
        return co.to(torch.int32), 0, torch.empty(0, dtype=torch.int64, device=cu.device)
    j = torch.arange(nct, device=cu.device)
    seq = torch.searchsorted(co[1:], j, right=True)                 # the sequence of each chunk
    c = j - co[seq]
    r = torch.arange(CHUNK, device=cu.device)
    pos = c[:, None] * CHUNK + r[None, :]                           # position inside the sequence
    rows = torch.where(pos < lens[seq][:, None], cu[seq][:, None] + pos, torch.full_like(pos, -1))
    return co.to(torch.int32), nct, rows.reshape(-1)


def _padded_chunks(q, k, v, g, beta, A_log, dt_bias, lower_bound, cu):
    """The activated q, k, g, beta (float32) and v, laid out in chunks: each [NCT, 64, H, ...], rows past a
    sequence's end zero.  Returns (CO, NCT, (q, k, g, beta, v))."""
    from . import reference as ref
    qf, kf, gf, bf = ref.activations(q, k, g, beta, A_log=A_log, dt_bias=dt_bias, lower_bound=lower_bound,
                                     dtype=torch.float32)
    co, nct, rows = chunk_layout(cu, q.shape[0])
    valid = (rows >= 0)
    src = rows.clamp(min=0)

    def pad(x):
        y = x[src] * valid.reshape((-1,) + (1,) * (x.dim() - 1)).to(x.dtype)
        return y.reshape((nct, CHUNK) + tuple(x.shape[1:]))

    return co, nct, (pad(qf), pad(kf), pad(gf), pad(bf), pad(v.float()))


def prepare_chunks(q, k, v, g, beta, A_log, dt_bias, lower_bound, scale, cu, batch_chunks: int = 256):
    """The chunk-local inputs of chunk_scan.cake, float32 math on q's device (the scaffold described above).
    q, k, g [TT, H, K], v [TT, H, V], beta [TT, H] raw (bf16).  Returns dict W, QG, KG, P, U (bf16 2-D), GL
    (f32), CO (int32), NCT."""
    H, K = q.shape[1:]
    V = v.shape[-1]
    dev = q.device
    co, nct, (qp, kp, gp, bp, vp) = _padded_chunks(q, k, v, g, beta, A_log, dt_bias, lower_bound, cu)
    G = gp.cumsum(1)                                                 # [NCT, 64, H, K]
    out = {"W": torch.empty(nct, CHUNK, H, K, dtype=torch.bfloat16, device=dev),
           "QG": torch.empty(nct, CHUNK, H, K, dtype=torch.bfloat16, device=dev),
           "KG": torch.empty(nct, CHUNK, H, K, dtype=torch.bfloat16, device=dev),
           "U": torch.empty(nct, CHUNK, H, V, dtype=torch.bfloat16, device=dev),
           "P": torch.empty(nct, CHUNK, H, CHUNK, dtype=torch.bfloat16, device=dev),
           "GL": G[:, -1].exp().contiguous()}                          # [NCT, H, K]
    idx = torch.arange(CHUNK, device=dev)
    strict = (idx[:, None] > idx[None, :])[..., None]
    causal = (idx[:, None] >= idx[None, :])[..., None]
    eye = torch.eye(CHUNK, device=dev)
    step = max(1, batch_chunks // max(H, 1))
    for a in range(0, nct, step):
        b = min(nct, a + step)
        Gc = G[a:b].permute(0, 2, 1, 3)                             # [c, H, 64, K]
        kc, qc = kp[a:b].permute(0, 2, 1, 3), qp[a:b].permute(0, 2, 1, 3)
        bc, vc = bp[a:b].permute(0, 2, 1), vp[a:b].permute(0, 2, 1, 3)
        diff = Gc[:, :, :, None, :] - Gc[:, :, None, :, :]           # G_r - G_s
        neg = torch.full_like(diff, -float("inf"))
        L = bc[..., None] * torch.einsum("chrd,chsd,chrsd->chrs", kc, kc, torch.where(strict, diff, neg).exp())
        P = scale * torch.einsum("chrd,chsd,chrsd->chrs", qc, kc, torch.where(causal, diff, neg).exp())
        del diff, neg
        Tinv = torch.linalg.solve_triangular(eye + L, eye.expand_as(L), upper=False, unitriangular=True)
        eG = Gc.exp()
        out["W"][a:b] = (Tinv @ (bc[..., None] * eG * kc)).permute(0, 2, 1, 3).to(torch.bfloat16)
        out["U"][a:b] = (Tinv @ (bc[..., None] * vc)).permute(0, 2, 1, 3).to(torch.bfloat16)
        out["QG"][a:b] = (scale * qc * eG).permute(0, 2, 1, 3).to(torch.bfloat16)
        out["KG"][a:b] = (kc * (Gc[:, :, -1:] - Gc).exp()).permute(0, 2, 1, 3).to(torch.bfloat16)
        out["P"][a:b] = P.permute(0, 2, 1, 3).to(torch.bfloat16)
    TP = nct * CHUNK
    for name, width in (("W", H * K), ("QG", H * K), ("KG", H * K), ("U", H * V), ("P", H * CHUNK)):
        out[name] = out[name].reshape(TP, width)
    out["GL"] = out["GL"].reshape(nct, H * K)
    out["CO"] = co
    out["NCT"] = nct
    return out


def prepare_chunks_cake(lib: "Kernels", q, k, v, g, beta, A_log, dt_bias, lower_bound, scale, cu, layout=None,
                        kernel: str = "kda_chunk_prep", poison: bool = False):
    """prepare_chunks with kernels/kda/chunk_prep.cake (kernel 1; kernel = "kda_chunk_prep_tc":
    kernels/kda/chunk_prep_tc.cake, the tensor-core version; "kda_chunk_prep_tc2": kernels/kda/chunk_prep_tc2.cake,
    the same in 109 KB of shared memory (two blocks per SM); "kda_chunk_prep_tc3": kernels/kda/chunk_prep_tc3.cake, every
    entry of L and P as tf32 tensor-core products, safe gate only (the unbounded gate runs chunk_prep_tc2's exact
    form: SAFE_GATE_ONLY); all four have one interface).  layout: chunk_layout(cu, TT) if the
    caller has it (the timed path reuses it; it depends on cu only).  poison: fill the workspaces with NaN first
    (checks: a part the kernel fails to write shows in o)."""
    TT, H, K = q.shape
    V = v.shape[-1]
    dev = q.device
    if lower_bound is not None and not (-5.0 <= lower_bound < 0.0):
        # the safe-gate builds rely on g >= -5 (chunk_prep_tc2 factors e^(G_r - G_s) through f32 factors)
        raise ValueError("cakeir.kda: lower_bound must lie in [-5, 0), got %r" % lower_bound)
    co, nct, rows = layout if layout is not None else chunk_layout(cu, TT)
    TP = nct * CHUNK
    out = {"W": torch.empty(TP, H * K, dtype=torch.bfloat16, device=dev),
           "QG": torch.empty(TP, H * K, dtype=torch.bfloat16, device=dev),
           "KG": torch.empty(TP, H * K, dtype=torch.bfloat16, device=dev),
           "U": torch.empty(TP, H * V, dtype=torch.bfloat16, device=dev),
           "P": torch.empty(TP, H * CHUNK, dtype=torch.bfloat16, device=dev),
           "GL": torch.empty(nct, H * K, dtype=torch.float32, device=dev), "CO": co, "NCT": nct}
    if poison:
        for name in ("W", "QG", "KG", "U", "P", "GL"):
            out[name].fill_(float("nan"))
    if nct > 0:
        if lower_bound is None:
            kernel = SAFE_GATE_ONLY.get(kernel, kernel)
        name = "%s_%s" % (kernel, "unbounded" if lower_bound is None else "safe")
        dtb = dt_bias.to(device=dev, dtype=torch.float32).reshape(H, K).contiguous()
        if dtb.data_ptr() % 16:                 # the tc2 kernel reads it in 16-byte vectors
            dtb = dtb.clone()
        lib._kernel(name, kernel)(q, k, v, g, beta, A_log.to(device=dev, dtype=torch.float32).contiguous(), dtb,
                           rows.to(torch.int32).contiguous(), out["W"], out["QG"], out["KG"], out["U"], out["P"],
                           out["GL"], float(scale), float(lower_bound if lower_bound is not None else -5.0))
    return out


_SM_COUNT: Dict[Any, int] = {}


def scan_warpgroups(N: int, H: int, device) -> int:
    """The scan build for N sequences of H heads: one warpgroup per block (2 N H blocks, each 64 state columns)
    when those blocks fit on the GPU's SMs at once, else two (N H blocks, both halves of a (sequence, head) in
    one block sharing the chunk tiles).  The scan is sequential along each sequence, so a second wave of blocks
    doubles its time, while two warpgroups per block cost each block ~1.5x (bench/results/2026-12-03-kda)."""
    key = torch.device(device)
    if key not in _SM_COUNT:
        _SM_COUNT[key] = torch.cuda.get_device_properties(key).multi_processor_count
    return 1 if 2 * N * H <= _SM_COUNT[key] else 2


def scan_chunks(lib: "Kernels", prep, v_shape, cu, *, varlen: bool, initial_state=None, final_state=None,
                state_v_first: bool = True, out=None, wg: Union[int, str] = 1):
    """Runs kda_chunk_scan on prepare_chunks' output: o [TT, H, V] bf16 (into out) and the final state (into
    final_state, when given).  wg: the build's warpgroups per block (chunk_scan.cake -D WG; 2: both 64-column
    blocks of a (sequence, head) in one block, builds kda_chunk_scan_wg2_*); "auto": scan_warpgroups' choice."""
    TT, H, V = v_shape
    dev = prep["W"].device
    N = cu.numel() - 1
    if wg == "auto":
        wg = scan_warpgroups(N, H, dev)
    if wg not in (1, 2):
        raise ValueError("cakeir.kda: scan wg must be 1, 2 or 'auto', not %r" % (wg,))
    use_state = initial_state is not None or final_state is not None
    state_shape = (N, H, V, V)
    name = "kda_chunk_scan%s_%s%s%s" % ("_wg2" if wg == 2 else "", "vfirst" if state_v_first else "kfirst",
                                        "_varlen" if varlen else "", "" if use_state else "_nostate")
    kernel = lib._kernel(name, "kda_chunk_scan")
    if use_state:
        h0 = initial_state.contiguous() if initial_state is not None else \
            torch.zeros(state_shape, dtype=torch.float32, device=dev)
        ht = final_state if final_state is not None else torch.empty(state_shape, dtype=torch.float32, device=dev)
    else:
        h0 = ht = torch.empty(1, H, V, V, dtype=torch.float32, device=dev)
    o = torch.empty(TT, H, V, dtype=torch.bfloat16, device=dev) if out is None else out
    if prep["NCT"] > 0:
        kernel(prep["W"], prep["QG"], prep["KG"], prep["P"], prep["U"], prep["GL"], h0, ht, o.view(TT, H * V),
               cu, prep["CO"])
    elif final_state is not None:
        ht.copy_(h0)
    return o, (final_state if final_state is not None else None)


def forward_chunked(lib: "Kernels", q, k, v, g, beta, *, A_log, dt_bias, lower_bound: Optional[float] = None,
                    scale: Optional[float] = None, initial_state=None, output_final_state: bool = False,
                    cu_seqlens=None, state_v_first: bool = False, prep: str = "cake", poison: bool = False,
                    scan_wg: Union[int, str] = 1):
    """The chunked forward: kernel 1 (prep = "cake": kernels/kda/chunk_prep.cake; "cake_tc": kernels/kda/
    chunk_prep_tc.cake; "cake_tc2": kernels/kda/chunk_prep_tc2.cake; "cake_tc3": kernels/kda/chunk_prep_tc3.cake
    (safe gate; the unbounded gate runs tc2); "torch": the prepare_chunks scaffold) +
    kda_chunk_scan with scan_wg warpgroups per block (scan_chunks' wg).  Same contract as
    Kernels.forward.  poison: NaN-fill kernel 1's workspaces first (CAKE preps)."""
    B, T, H, K = q.shape
    V = v.shape[-1]
    if scale is None:
        scale = K ** -0.5
    dev = q.device
    varlen = cu_seqlens is not None
    cu = cu_seqlens.to(device=dev, dtype=torch.int64) if varlen else \
        torch.arange(0, (B + 1) * T, T, dtype=torch.int64, device=dev)
    TT = B * T
    inputs = (q.reshape(TT, H, K), k.reshape(TT, H, K), v.reshape(TT, H, V), g.reshape(TT, H, K), beta.reshape(TT, H),
              A_log, dt_bias, lower_bound, scale, cu)
    if prep == "torch":
        work = prepare_chunks(*inputs)
    else:
        if prep not in PREP_KERNELS:
            raise ValueError("cakeir.kda: unknown prep %r (one of %s, torch)" % (prep, ", ".join(PREP_KERNELS)))
        work = prepare_chunks_cake(lib, *inputs, kernel=PREP_KERNELS[prep], poison=poison)
    N = cu.numel() - 1
    ht = None
    if output_final_state:
        ht = torch.empty((N, H, V, K) if state_v_first else (N, H, K, V), dtype=torch.float32, device=dev)
    o, _ = scan_chunks(lib, work, (TT, H, V), cu, varlen=varlen, initial_state=initial_state, final_state=ht,
                       state_v_first=state_v_first, wg=scan_wg)
    return o.view(B, T, H, V), ht


def scan_chunks_torch(prep, v_shape, cu, *, initial_state=None, state_v_first: bool = True):
    """What kda_chunk_scan computes, step for step in torch (float32, S rounded to bf16 where the kernel stores it
    to shared memory): the model the tests check the workspace contract with.  Returns (o [TT, H, V] float32,
    final state float32 in the requested layout)."""
    TT, H, V = v_shape
    K = prep["GL"].shape[1] // H
    N = cu.numel() - 1
    dev = prep["W"].device
    co = prep["CO"].long()
    o = torch.zeros(TT, H, V, dtype=torch.float32, device=dev)
    S = torch.zeros(N, H, K, V, dtype=torch.float32, device=dev)
    if initial_state is not None:
        S = initial_state.float().transpose(-1, -2).clone() if state_v_first else initial_state.float().clone()
    rs = lambda t, w: t.float().reshape(-1, H, w)  # noqa: E731
    W, QG, KG, U, P = rs(prep["W"], K), rs(prep["QG"], K), rs(prep["KG"], K), rs(prep["U"], V), rs(prep["P"], CHUNK)
    GL = prep["GL"].reshape(-1, H, K)
    for n in range(N):
        bos, eos = int(cu[n]), int(cu[n + 1])
        for c in range((eos - bos + CHUNK - 1) // CHUNK):
            j = int(co[n]) + c
            rows = slice(j * CHUNK, (j + 1) * CHUNK)
            Sb = S[n].to(torch.bfloat16).float()                     # [H, K, V]
            w, qg, kg, u, p = (x[rows].transpose(0, 1) for x in (W, QG, KG, U, P))   # [H, 64, *]
            vn = u - w @ Sb
            vb = vn.to(torch.bfloat16).float()
            oc = qg @ Sb + p @ vb
            S[n] = GL[j][:, :, None] * S[n] + kg.transpose(-1, -2) @ vb
            take = min(CHUNK, eos - bos - c * CHUNK)
            o[bos + c * CHUNK: bos + c * CHUNK + take] = oc.transpose(0, 1)[:take]
    return o, (S.transpose(-1, -2).contiguous() if state_v_first else S)


def block_inverse_unit_lower(L: torch.Tensor, bc: int = 16) -> torch.Tensor:
    """(I + L)^-1 for strictly lower-triangular L [..., n, n], as kernels/kda/chunk_prep_tc.cake computes it: the
    bc x bc diagonal blocks A_b = (I + L_bb)^-1 by forward substitution, then the off-diagonal blocks level by level,
    T_ij = -A_i sum_{k=j}^{i-1} L_ik T_kj (T_jj = A_j).  Works in L's dtype."""
    n = L.shape[-1]
    nb = n // bc
    T = torch.zeros_like(L)
    eye = torch.eye(bc, dtype=L.dtype, device=L.device)
    blk = lambda X, i, j: X[..., i * bc:(i + 1) * bc, j * bc:(j + 1) * bc]  # noqa: E731
    for b in range(nb):
        Lb = blk(L, b, b)
        x = torch.zeros_like(Lb)
        for r in range(bc):                                      # row r of A_b: e_r - sum_{s<r} L[r, s] x[s]
            x[..., r, :] = eye[r] - (Lb[..., r, :r, None] * x[..., :r, :]).sum(-2)
        blk(T, b, b).copy_(x)
    for d in range(1, nb):
        for j in range(nb - d):
            i = j + d
            M = L[..., i * bc:(i + 1) * bc, j * bc:i * bc] @ T[..., j * bc:i * bc, j * bc:(j + 1) * bc]
            blk(T, i, j).copy_(-(blk(T, i, i) @ M))
    return T


def diagonal_blocks(kc, qc, Gc, factored: bool = False):
    """The four diagonal 16 x 16 blocks of the intra-chunk matrices, without beta / scale / masks: (KK, QK) [..., 64,
    16] with KK[..., 16 b + r, s] = sum_d k_rd k_sd e^(G_rd - G_sd) (r, s in block b; likewise QK with q_r), for s <= r
    (above the diagonal: 0).  kc, qc, Gc [..., 64, K] (normalised k, q; the gate's cumsum).  factored = False: exact
    exponents per pair (chunk_prep_tc.cake, chunk_prep_tc2.cake with SAFE = 0); True: through the block's middle row
    m = 16 b + 8, e^(G_r - G_m) e^(G_m - G_s) (chunk_prep_tc2.cake with SAFE = 1: finite while the gate is bounded,
    |G_r - G_m| <= 8 |lower_bound|)."""
    KK = torch.zeros(kc.shape[:-1] + (16,), dtype=kc.dtype, device=kc.device)
    QK = torch.zeros_like(KK)
    tri = torch.tril(torch.ones(16, 16, dtype=torch.bool, device=kc.device))
    for b in range(kc.shape[-2] // 16):
        rb = slice(16 * b, 16 * b + 16)
        kb, qb, Gb = kc[..., rb, :], qc[..., rb, :], Gc[..., rb, :]
        if factored:
            Gm = Gc[..., 16 * b + 8: 16 * b + 9, :]
            x, y = (Gb - Gm).exp(), (Gm - Gb).exp()
            kk_, qk_ = (kb * x) @ (kb * y).transpose(-1, -2), (qb * x) @ (kb * y).transpose(-1, -2)
        else:
            diff = Gb[..., :, None, :] - Gb[..., None, :, :]
            e = torch.where(tri[..., None], diff, torch.full_like(diff, -float("inf"))).exp()
            kk_ = torch.einsum("...rd,...sd,...rsd->...rs", kb, kb, e)
            qk_ = torch.einsum("...rd,...sd,...rsd->...rs", qb, kb, e)
        KK[..., rb, :] = torch.where(tri, kk_, torch.zeros_like(kk_))
        QK[..., rb, :] = torch.where(tri, qk_, torch.zeros_like(qk_))
    return KK, QK


def prepare_chunks_tc_model(q, k, v, g, beta, A_log, dt_bias, lower_bound, scale, cu, factored_diagonal=False):
    """What kernels/kda/chunk_prep_tc.cake computes, on CPU / GPU tensors in torch, with its roundings: the
    off-diagonal 16 x 16 blocks of L and P from f16 operands (k_r e^(G_r - G_n), q_r e^(G_r - G_n), k_s e^(G_n - G_s),
    n the first row of r's sub-chunk) with f32 sums; the diagonal blocks in f32 (diagonal_blocks; factored_diagonal:
    as chunk_prep_tc2.cake computes them for the safe gate); T = (I + L)^-1 by block_inverse_unit_lower in f32; w, u =
    T (beta e^G k), T (beta v) from bf16 operands with f32 sums.  Returns prepare_chunks' dict."""
    H, K = q.shape[1:]
    dev = q.device
    co, nct, padded = _padded_chunks(q, k, v, g, beta, A_log, dt_bias, lower_bound, cu)
    qc, kc, gc, bc, vc = (x.transpose(1, 2) for x in padded)                 # [NCT, H, 64, ...]
    Gc = gc.cumsum(2)
    r16 = lambda x: x.to(torch.float16).float()  # noqa: E731
    rb = lambda x: x.to(torch.bfloat16).float()  # noqa: E731
    L = torch.zeros(nct, H, CHUNK, CHUNK, device=dev)
    P = torch.zeros(nct, H, CHUNK, CHUNK, device=dev)
    KK, QK = diagonal_blocks(kc, qc, Gc, factored=factored_diagonal)
    for i in range(4):
        n = 16 * i
        ri = slice(n, n + 16)
        L[:, :, ri, ri] = KK[:, :, ri] * torch.tril(torch.ones(16, 16, device=dev), -1)
        P[:, :, ri, ri] = QK[:, :, ri]
        if i == 0:
            continue
        fr = (Gc[:, :, ri] - Gc[:, :, n:n + 1]).exp()
        fs = (Gc[:, :, n:n + 1] - Gc[:, :, :n]).exp()
        a, qa, b = r16(kc[:, :, ri] * fr), r16(qc[:, :, ri] * fr), r16(kc[:, :, :n] * fs)
        L[:, :, ri, :n] = a @ b.transpose(-1, -2)
        P[:, :, ri, :n] = qa @ b.transpose(-1, -2)
    L = L * bc[..., None]
    P = P * scale
    T = block_inverse_unit_lower(L)
    eG = Gc.exp()
    W = rb(T) @ rb(bc[..., None] * eG * kc)
    U = rb(T) @ rb(bc[..., None] * vc)
    out = {"W": W, "U": U, "QG": scale * qc * eG, "KG": kc * (Gc[:, :, -1:] - Gc).exp(), "P": P}
    TP = nct * CHUNK
    for name, x in list(out.items()):
        out[name] = x.transpose(1, 2).to(torch.bfloat16).reshape(TP, -1)
    out["GL"] = Gc[:, :, -1].exp().reshape(nct, H * K).contiguous()
    out["CO"] = co
    out["NCT"] = nct
    return out
