"""The shapes of bench/library_knn_bench.py: a seeded generator of KNN and k-means-assignment problems (D in DIMS, k
in KS, log-uniform sizes under a work cap, the tails 1 / 7 / 1000 / 65537 in both positions, batched and not, the
boundary values of k for the training set), their deterministic split into training and held-out shapes (a
hash of the problem, so a shape keeps its side when the generator grows) and the buckets the report groups
them by."""

import hashlib
import math
import random

DIMS = (64, 128, 256)
KS = (1, 10, 32, 64)
KS_BOUNDARY = (11, 16, 17, 33)          # training only: exact thresholds on k for the tree
TAILS = (1, 7, 1000, 65537)
BATCHES = (2, 3, 4, 8, 16)
KNN_WORK_CAP = 1 << 39                  # B * Q * M * D
ASSIGN_WORK_CAP = 1 << 40               # B * N * K * D
TRAIN_FRACTION = 0.25
SEED = 20261203
SHAPE_VARS = {"knn": ("B", "N", "K", "D", "k"), "assign": ("B", "N", "K", "D")}


class Shape:
    """One problem.  op "knn": queries [B, q, D], corpus [B, m, D], k; op "assign": points [B, q, D], centroids
    [B, m, D].  batched False: 2-d tensors (B = 1).  The library's shape variables: B, N = q, K = m, D (, k)."""

    def __init__(self, op, b, q, m, d, k=0, batched=False, tail=False):
        self.op, self.b, self.q, self.m, self.d, self.k = op, b, q, m, d, k
        self.batched, self.tail = batched, tail
        self.set = None

    @property
    def values(self):
        v = {"B": self.b, "N": self.q, "K": self.m, "D": self.d}
        if self.op == "knn":
            v["k"] = self.k
        return v

    @property
    def key(self):
        """generalize.shape_key of the library's shape variables."""
        return ",".join("%s=%d" % (n, self.values[n]) for n in SHAPE_VARS[self.op])

    @property
    def label(self):
        if self.op == "knn":
            text = "knn Q=%d M=%d D=%d k=%d" % (self.q, self.m, self.d, self.k)
        else:
            text = "assign N=%d K=%d D=%d" % (self.q, self.m, self.d)
        return text + (" B=%d" % self.b if self.batched else "")

    @property
    def work(self):
        return self.b * self.q * self.m * self.d

    @property
    def flops(self):
        return 2.0 * self.work

    @property
    def nbytes(self):
        return 2.0 * self.b * (self.q + self.m) * self.d

    def to_json(self):
        return dict(self.values, op=self.op, batched=self.batched, set=self.set, tail=self.tail)


def _log_uniform(rng, lo, hi):
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def _in_train(shape):
    digest = hashlib.sha256(("%s %s %d" % (shape.op, shape.key, shape.batched)).encode()).digest()
    return int.from_bytes(digest[:8], "little") / 2.0 ** 64 < TRAIN_FRACTION


def _largest_k_within(m, choices=KS):
    return max(k for k in choices if k <= m)


def _draw(rng, op, count, seen, out, ks=KS, dims=DIMS):
    q_hi, m_hi, cap = ((65537, 1 << 21, KNN_WORK_CAP) if op == "knn" else (1 << 22, 1 << 14, ASSIGN_WORK_CAP))
    while count > 0:
        d = rng.choice(dims)
        batched = rng.random() < 0.5
        b = rng.choice(BATCHES) if batched else 1
        q = rng.choice(TAILS) if rng.random() < 0.12 else _log_uniform(rng, 1, q_hi)
        m = rng.choice(TAILS) if rng.random() < 0.12 else _log_uniform(rng, 1, m_hi)
        k = rng.choice(ks) if op == "knn" else 0
        if op == "knn" and m < k:                  # flashlib refuses M < k (CAKE's M < k: bench/knn_bench.py)
            if ks is not KS:
                continue
            k = _largest_k_within(m)
        shape = Shape(op, b, q, m, d, k, batched)
        if shape.work > cap or (op, shape.key, batched) in seen:
            continue
        seen.add((op, shape.key, batched))
        out.append(shape)
        count -= 1


def shapes(seed=SEED, knn_random=560, assign_random=560, boundary_each=3):
    """Every shape of both libraries, each with .set "train" or "held_out" (tails: "tail", held out too)."""
    rng = random.Random(seed)
    out, seen = [], set()
    for op in ("knn", "assign"):
        cap = KNN_WORK_CAP if op == "knn" else ASSIGN_WORK_CAP
        tails = []
        for i, t in enumerate(TAILS):               # every tail in both positions, every D, batched and not
            for d in DIMS:
                for pos in ("q", "m"):
                    batched = (i + DIMS.index(d) + (pos == "m")) % 2 == 1
                    b = 4 if batched else 1
                    for _ in range(100):
                        other = _log_uniform(rng, 1, 65537 if op == "knn" else 1 << 14)
                        q, m = (t, other) if pos == "q" else (other, t)
                        if b * q * m * d <= cap:
                            break
                    k = rng.choice([x for x in KS if x <= m]) if op == "knn" else 0
                    shape = Shape(op, b, q, m, d, k, batched, tail=True)
                    if (op, shape.key, batched) not in seen:
                        seen.add((op, shape.key, batched))
                        shape.set = "tail"
                        tails.append(shape)
        drawn = []
        _draw(rng, op, knn_random if op == "knn" else assign_random, seen, drawn)
        for s in drawn:
            s.set = "train" if _in_train(s) else "held_out"
        extra = []
        if op == "knn":                             # every boundary k with every D, so no tree leaf lacks one
            for d in DIMS:
                for kb in KS_BOUNDARY:
                    _draw(rng, op, boundary_each, seen, extra, ks=(kb,), dims=(d,))
            for s in extra:
                s.set = "train"
        out += tails + drawn + extra
    return out


def bucket(shape):
    """The report's bucket: op, D, k, batched, and the size class of the problem (its work, log-spaced)."""
    size = "tiny" if shape.work < 1 << 24 else "small" if shape.work < 1 << 30 else \
        "medium" if shape.work < 1 << 35 else "large"
    return "%s D=%d%s %s %s" % (shape.op, shape.d, " k=%d" % shape.k if shape.op == "knn" else "",
                                "batched" if shape.batched else "2-d", size)
