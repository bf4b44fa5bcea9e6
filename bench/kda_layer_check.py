#!/usr/bin/env python3
"""fla's KimiDeltaAttention layer with the CAKE backend (cakeir.kda.ops.fla_backend) against fla's own kernels, on
the GPU, with random weights (seeded):

1. (run second) one layer (hidden 1024, 8 heads of 128), bf16, eval mode: prefill of several lengths (T <= 64 takes the layer's
   fused_recurrent path, longer ones chunk_kda), a batch of 2, and a padded batch through attention_mask (fla
   unpads it into cu_seqlens), for the safe gate (lower_bound -5) and the unbounded one: ||y_cake - y_fla|| /
   ||y_fla||, and both against the float32 layer run with the float64 token recurrence as the kernel (the truth;
   up to --truth-max-tokens tokens, as it runs token by token); cases past --budget seconds are skipped;
2. (run first) a small stack (embedding, 3 x [RMSNorm, KimiDeltaAttention, RMSNorm, MLP] residual blocks, RMSNorm, LM head;
   random init), greedy decoding of 32 tokens after a 200-token prompt with a recurrent-state cache (prefill
   through chunk_kda, then one token a call through fused_recurrent_kda), with each backend: the token sequences
   must be equal; the smallest top-1 / top-2 logit margin seen is reported (how close a flip came).

    CAKE_KDA_CUBINS=bench/out/kda/cubins CAKE_RUNTIME_LIB=... python3 bench/kda_layer_check.py --peers PEERS --out DIR

Writes DIR/kda_layer.json and prints a summary; exit 0 when every comparison is within --tol and the
continuations agree."""

import argparse
import json
import os
import sys

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(os.path.dirname(BENCH_DIR), "runtime", "python"))


class StateCache:
    """The duck-typed cache fla's layers read and update (get_layer_cache / update_layer_cache): one dict of
    recurrent_state and conv_state per layer."""

    def __init__(self):
        self.layers = []

    def __len__(self):
        return len(self.layers)

    def __getitem__(self, i):
        return self.layers[i]

    def update(self, layer_idx, recurrent_state=None, conv_state=None, offset=0, **_):
        state = {"recurrent_state": recurrent_state, "conv_state": conv_state}
        if layer_idx < len(self.layers):
            self.layers[layer_idx] = state
        else:
            self.layers.append(state)
        return state


def build_stack(torch, KDA, layers, hidden, heads, vocab, lower_bound):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, i):
            super().__init__()
            self.n1, self.n2 = nn.RMSNorm(hidden), nn.RMSNorm(hidden)
            self.attn = KDA(hidden_size=hidden, head_dim=128, num_heads=heads, safe_gate=lower_bound is not None,
                            lower_bound=lower_bound, layer_idx=i)
            self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))

        def forward(self, x, cache):
            x = x + self.attn(self.n1(x), past_key_values=cache, use_cache=cache is not None)[0]
            return x + self.mlp(self.n2(x))

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, hidden)
            self.blocks = nn.ModuleList(Block(i) for i in range(layers))
            self.norm = nn.RMSNorm(hidden)
            self.head = nn.Linear(hidden, vocab, bias=False)

        def forward(self, ids, cache=None):
            x = self.emb(ids)
            for b in self.blocks:
                x = b(x, cache)
            return self.head(self.norm(x))

    return Stack()


def greedy(torch, model, prompt, steps):
    cache = StateCache()
    logits = model(prompt, cache)[:, -1].float()
    out, margins = [], []
    for _ in range(steps):
        top = logits.topk(2, dim=-1).values
        margins.append(float((top[:, 0] - top[:, 1]).min()))
        nxt = logits.argmax(-1, keepdim=True)
        out.append(int(nxt[0, 0]))
        logits = model(nxt, cache)[:, -1].float()
    return out, min(margins)


def write(args, ok, records):
    """DIR/kda_layer.json with what has run so far."""
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "kda_layer.json"), "w") as f:
        json.dump({"command": " ".join(sys.argv), "seed": args.seed, "tol": args.tol, "ok": ok, **records}, f,
                  indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peers", required=True, help="folder with fla/")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--tol", type=float, default=2e-2)
    ap.add_argument("--budget", type=float, default=180.0, help="seconds; layer cases past it are skipped")
    ap.add_argument("--truth-max-tokens", type=int, default=2048,
                    help="the float64 truth only for cases of at most this many tokens (it runs token by token)")
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.peers, "fla"))

    import time
    import torch
    import fla.layers.kda as fla_kda
    from cakeir.kda import ops, reference as ref

    def truth_backend():
        """chunk_kda / fused_recurrent_kda as the float64 token recurrence (o in the layer's dtype)."""
        def run(q, k, v, g, beta, scale=None, initial_state=None, output_final_state=False, A_log=None,
                dt_bias=None, lower_bound=None, state_v_first=False, cu_seqlens=None, **_):
            o, s = ref.kda_forward(q, k, v, g, beta, A_log=A_log.float(), dt_bias=dt_bias.float(),
                                   lower_bound=lower_bound, scale=scale, initial_state=initial_state,
                                   cu_seqlens=cu_seqlens, state_v_first=state_v_first)
            return o.to(v.dtype), (s.float() if output_final_state else None)
        return run

    records, ok = {"layer": [], "stack": []}, True
    dev = "cuda"
    deadline = time.time() + args.budget
    for lower_bound in (-5.0, None):
        torch.manual_seed(args.seed + 1)
        model = build_stack(torch, fla_kda.KimiDeltaAttention, 3, 512, 4, 1000, lower_bound).to(dev, torch.bfloat16)
        model.eval()
        with torch.no_grad():
            model.head.weight.mul_(20.0)                # peaked logits: random init is otherwise near-uniform
            prompt = torch.randint(0, 1000, (1, 200), device=dev)
            toks_fla, margin_fla = greedy(torch, model, prompt, 32)
            with ops.fla_backend(fla_kda):
                toks_cake, margin_cake = greedy(torch, model, prompt, 32)
        first = next((i for i, (a, b) in enumerate(zip(toks_fla, toks_cake)) if a != b), None)
        rec = {"lower_bound": lower_bound, "prompt": 200, "steps": 32, "same": toks_fla == toks_cake,
               "first_difference": first, "min_margin_fla": margin_fla, "min_margin_cake": margin_cake,
               "tokens_fla": toks_fla, "tokens_cake": toks_cake}
        ok &= rec["same"]
        records["stack"].append(rec)
        print(json.dumps(rec), flush=True)
        write(args, ok, records)

    for lower_bound in (-5.0, None):
        torch.manual_seed(args.seed)
        layer = fla_kda.KimiDeltaAttention(hidden_size=1024, head_dim=128, num_heads=8,
                                           safe_gate=lower_bound is not None, lower_bound=lower_bound,
                                           layer_idx=0).to(dev, torch.bfloat16).eval()
        for B, T, pad in ((1, 17, 0), (1, 64, 0), (1, 65, 0), (1, 300, 0), (2, 1000, 0), (1, 4096, 0),
                          (2, 700, 300)):
            if time.time() > deadline:
                records["layer"].append({"lower_bound": lower_bound, "B": B, "T": T, "pad": pad,
                                         "status": "skipped (budget)"})
                continue
            t0 = time.time()
            x = torch.randn(B, T, 1024, device=dev, dtype=torch.bfloat16)
            mask = None
            if pad:
                mask = torch.ones(B, T, dtype=torch.long, device=dev)
                mask[0, :pad] = 0                       # left padding of the first sequence
            with torch.no_grad():
                y_fla = layer(x, attention_mask=mask)[0]
                with ops.fla_backend(fla_kda):
                    y_cake = layer(x, attention_mask=mask)[0]
                y_true = None
                if B * T <= args.truth_max_tokens:
                    saved = (fla_kda.chunk_kda, fla_kda.fused_recurrent_kda)
                    fla_kda.chunk_kda = fla_kda.fused_recurrent_kda = truth_backend()
                    try:
                        y_true = layer.float()(x.float(), attention_mask=mask)[0]
                    finally:
                        fla_kda.chunk_kda, fla_kda.fused_recurrent_kda = saved
                        layer.to(torch.bfloat16)
            if mask is not None:                        # the padded positions are not outputs
                keep = mask.bool()
                y_fla, y_cake = y_fla[keep], y_cake[keep]
                y_true = y_true[keep] if y_true is not None else None
            rec = {"lower_bound": lower_bound, "B": B, "T": T, "pad": pad,
                   "path": "fused_recurrent" if T <= 64 else "chunk",
                   "cake_vs_fla": ref.rel_error(y_cake, y_fla),
                   "cake_vs_truth": ref.rel_error(y_cake, y_true) if y_true is not None else None,
                   "fla_vs_truth": ref.rel_error(y_fla, y_true) if y_true is not None else None,
                   "finite": bool(torch.isfinite(y_cake.float()).all()), "seconds": round(time.time() - t0, 1)}
            rec["ok"] = rec["finite"] and rec["cake_vs_fla"] <= args.tol
            ok &= rec["ok"]
            records["layer"].append(rec)
            print(json.dumps(rec), flush=True)
            write(args, ok, records)
    print("all ok" if ok else "NOT ok")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
