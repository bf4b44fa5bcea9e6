"""The problems bench/search_gemm.py can search (--family): per kernel family, the weak seed, the hand-written
variants it is judged against, the default shapes, and what the GPU timer needs - fresh seeded inputs with the
outputs poisoned, the positional kernel arguments, the correctness check against torch and the torch peer.

  gemm    C[M, N] = A[M, K] B[N, K]^T in bf16 (kernels/gemm/family_hopper_bf16.json); check: relative
          Frobenius error of C against A B^T in float32 below 2e-2; peer torch.matmul.
  kmeans  the k-means assignment L = argmin_c ||x - c||^2, MinD = CN[L] - 2 x.c_L
          (kernels/kmeans/family_assign_bf16.json); shapes with K a multiple of 512, so KP = K for every
          legal BN of the tensor-core member.  Inputs: centroids standard normal, points near random
          centroids (noise 0.5) mixed with standard normal ones, CN = ||c||^2 in float32, L poisoned with -1,
          MinD with NaN.  Check against float32 distances CN - 2 X C^T (chunks of 16384 points): every label in
          [0, K); each point's label is the reference argmin or a near tie (d(label) - d_min <= 1e-3 |d_min| +
          1e-5 (||x||^2 + CN[label])); MinD within 1e-4 (||x||^2 + CN[label]) + 1e-3 |d(label)| of the
          reference distance of its label.  The error reported is the share of points failing.  Peer: torch
          argmin(CN - 2 (X C^T).float()).
Every torch call is inside a method: importing this file needs no torch."""

import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class GemmProblem:
    name = "gemm"
    family = os.path.join(REPO, "kernels", "gemm", "family_hopper_bf16.json")
    seed = os.path.join(REPO, "kernels", "gemm", "seed_weak_hopper.cake")
    hand_written = [os.path.join(REPO, "samples", name) for name in
                    ("hopper_gemm.cake", "hopper_gemm_persistent.cake", "hopper_gemm_tma_epilogue.cake")]
    shapes = ["M=4096,N=4096,K=4096", "M=8192,N=8192,K=8192"]
    peer_name = "torch.matmul"
    tolerance = 2e-2

    def inputs(self, torch, shape, gen):
        a = torch.randn(shape["M"], shape["K"], device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(shape["N"], shape["K"], device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.full((shape["M"], shape["N"]), float("nan"), device="cuda", dtype=torch.bfloat16)
        return [a, b, c]

    def check(self, torch, args):
        """(relative error, passed)."""
        a, b, c = args
        reference = a.float() @ b.float().T
        error = float((c.float() - reference).norm() / reference.norm())
        return error, error < self.tolerance

    def peer(self, torch, args):
        a, b, c = args
        return lambda: torch.matmul(a, b.T, out=c)


class KmeansProblem:
    name = "kmeans"
    family = os.path.join(REPO, "kernels", "kmeans", "family_assign_bf16.json")
    seed = os.path.join(REPO, "kernels", "kmeans", "assign_seed_naive.cake")
    hand_written = [os.path.join(REPO, "kernels", "kmeans", "assign_sm90.cake")]
    shapes = ["B=1,N=262144,K=1024,KP=1024,D=128", "B=4,N=65536,K=2048,KP=2048,D=128"]
    peer_name = "torch argmin(CN - 2 X C^T)"
    chunk = 16384

    def inputs(self, torch, shape, gen):
        b, n, k, d = shape["B"], shape["N"], shape["K"], shape["D"]
        c = torch.randn(b, k, d, device="cuda", generator=gen)
        near = torch.randint(0, k, (b, n), device="cuda", generator=gen)
        x = torch.gather(c, 1, near.unsqueeze(-1).expand(b, n, d)) + \
            0.5 * torch.randn(b, n, d, device="cuda", generator=gen)
        mixed = torch.rand(b, n, 1, device="cuda", generator=gen) < 0.25
        x = torch.where(mixed, torch.randn(b, n, d, device="cuda", generator=gen), x)
        x, c = x.to(torch.bfloat16), c.to(torch.bfloat16)
        cn = (c.float() ** 2).sum(-1).contiguous()                       # [B, KP] with KP = K
        labels = torch.full((b, n), -1, device="cuda", dtype=torch.int32)
        mind = torch.full((b, n), float("nan"), device="cuda", dtype=torch.float32)
        return [x, c, cn, labels, mind]

    def check(self, torch, args):
        """(share of points whose label or MinD is wrong, passed)."""
        x, c, cn, labels, mind = args
        k = c.shape[1]
        bad = 0
        total = labels.numel()
        for b in range(x.shape[0]):
            cf = c[b].float()
            for start in range(0, x.shape[1], self.chunk):
                xf = x[b, start:start + self.chunk].float()
                lab = labels[b, start:start + self.chunk].long()
                got = mind[b, start:start + self.chunk]
                valid = (lab >= 0) & (lab < k)
                safe = lab.clamp(0, k - 1)
                dist = cn[b].unsqueeze(0) - 2.0 * (xf @ cf.T)
                best = dist.min(dim=1).values
                mine = dist.gather(1, safe.unsqueeze(1)).squeeze(1)
                scale = (xf * xf).sum(1) + cn[b][safe]
                tie_ok = mine - best <= 1e-3 * best.abs() + 1e-5 * scale
                mind_ok = (got - mine).abs() <= 1e-4 * scale + 1e-3 * mine.abs()
                ok = valid & tie_ok & mind_ok & torch.isfinite(got)
                bad += int((~ok).sum())
        error = bad / total
        return error, bad == 0

    def peer(self, torch, args):
        x, c, cn, labels, mind = args
        return lambda: torch.argmin(cn.unsqueeze(1) - 2.0 * torch.bmm(x, c.transpose(1, 2)).float(), dim=-1)


PROBLEMS = {problem.name: problem for problem in (GemmProblem(), KmeansProblem())}
