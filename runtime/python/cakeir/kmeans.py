"""k-means and KNN on torch tensors with the CAKE kernels of kernels/kmeans/ (assign_sm90.cake,
centroid_update.cake).

    from cakeir import kmeans
    lib = kmeans.Kernels("bench/out/kmeans")                # the cubins of bench/kmeans_build.sh
    labels, mind = lib.assign(x, c)                          # x [B, N, D], c [B, K, D] bf16/fp16 on the GPU
    new, counts = lib.centroid_update(x, labels, c)          # means of the assigned points (empty: old kept)
    c, labels, iters = lib.kmeans(x, k=1024, iters=10)       # Lloyd's iterations from a k-means++ start
    dist, idx = lib.knn(queries, corpus, k=10)               # the 10 nearest corpus rows, sorted

A Kernels object holds the cubins of one folder, named as bench/kmeans_build.sh names them:
kmeans_assign_sm90_<bf16|f16>_d<D>.cubin, knn_sm90_<bf16|f16>_d<D>.cubin (both from assign_sm90.cake, with
the parameters each is tuned with), kmeans_assign_sm80_<bf16|f16>_d<D>.cubin (assign_sm80.cake: the
assignment on GPUs before sm_90; KNN and the norms kernel are sm_90 only) and
centroid_update_<bf16|f16>_d<D>.cubin (each with its manifest).
Inputs may also be unbatched ([N, D] and [K, D]); outputs follow.  Every call launches on torch's current
stream and allocates its outputs and work buffers through torch's caching allocator.  The hot kernels are
called with positional arguments, in their parameter order: the native launch path takes no keywords.
"""

import json
import os
from typing import Dict

import torch

from . import DevicePtr, load, load_library

_TYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}

# Kernels.knn's routes: the knn_small library (_small_serves, _small_splits), the wgmma knn library, and the
# k-means assignment for k = 1 (ARGMIN_*).
# log2(B Q M D) below which knn_small serves, by k class (the KK of the variants: k <= 1, 10, 16, 32, 64),
# fitted to the training shapes' times by bench/knn_route_fit.py.  k = 1: every size (a shape the assignment
# does not take runs knn_small; the knn library's ten-entry lists ran 0.76x flashlib on 20 such shapes where
# knn_small's best variant ran 0.95x: bench/results/2026-12-05-codegen-ranges/k1_paths.json).
SMALL_WORK_LOG2 = ((1, 64.0), (10, 33.5), (16, 33.5), (32, 30.5), (64, 30.0))
SPLIT_TILES = 8             # corpus tiles per knn_small split at least (lists of up to 10 entries)
WC_SPLITS = 12              # splits at most for knn_small variants with column groups (WC > 1)
# k = 1 with ARGMIN_CORPUS corpus rows or more and at least ARGMIN_BLOCKS 128-row query blocks - or
# ARGMIN_BLOCKS_LARGE of them when the work B Q M D reaches 2^ARGMIN_WORK_LOG2 -: the k-means assignment
# (Kernels._knn_argmin; it splits only the queries, so it needs many of them.  Above the work bound it lost to
# knn_small at 32 and 43 blocks and won from 45, by up to 3x at 70-116: k1_paths.json above; below it, knn_small
# up to 128 blocks is what the training shapes chose).
ARGMIN_BLOCKS = 128
ARGMIN_BLOCKS_LARGE = 44
ARGMIN_WORK_LOG2 = 32.5
ARGMIN_CORPUS = 512


def _batched(t, rank):
    return (t.unsqueeze(0), True) if t.dim() == rank - 1 else (t, False)


class Kernels:
    """The k-means kernels of one folder of cubins; each module is loaded on first use."""

    def __init__(self, folder=None):
        self.folder = folder or os.environ.get("CAKE_KMEANS_CUBINS", "")
        if not self.folder or not os.path.isdir(self.folder):
            raise FileNotFoundError("cakeir.kmeans: no cubin folder (give one, or set $CAKE_KMEANS_CUBINS): %r"
                                    % self.folder)
        self._modules = {}
        self._sms = {}

    def _module(self, stem, dtype, d, variant=""):
        if dtype not in _TYPE_NAMES:
            raise TypeError("cakeir.kmeans: element type %s (bf16 or fp16 expected)" % dtype)
        name = "%s_%s_d%d%s" % (stem, _TYPE_NAMES[dtype], d, variant)
        if name not in self._modules:
            path = os.path.join(self.folder, name + ".cubin")
            if not os.path.isfile(path):
                raise FileNotFoundError("cakeir.kmeans: %s: no kernel for D = %d, %s (build it with "
                                        "bench/kmeans_build.sh)" % (path, d, dtype))
            with open(path + ".json", encoding="utf-8") as f:
                manifest = json.load(f)
            ct = {kernel["name"]: kernel.get("ct_params", {}) for kernel in manifest.get("kernels", [])}
            self._modules[name] = (load(path).kernels, ct)
        return self._modules[name]

    def _library(self, stem, dtype):
        """The kernel library <folder>/<stem>_<dtype>/ (`cakec library build kernels/kmeans/library_*.json`), or
        None when the folder has none."""
        name = "%s_%s" % (stem, _TYPE_NAMES.get(dtype, "?"))
        if name not in self._modules:
            path = os.path.join(self.folder, name)
            self._modules[name] = load_library(path) if os.path.isfile(os.path.join(path, "library.json")) else None
        return self._modules[name]

    def _targeted(self, library, device):
        """The library, its dispatch set to the arch of `device` (once)."""
        if not library.target:
            major, minor = torch.cuda.get_device_capability(device)
            library.set_arch("sm_%d%d%s" % (major, minor, "a" if major >= 9 else ""))
        return library

    def _library_module(self, library, variant):
        """(kernels by name, ct_params by kernel name) of every kernel in one library variant's cubin: the
        table picks the variant by its dispatched kernel (knn_topk), whose siblings (row_norms, knn_merge) were
        compiled with the same parameters."""
        key = (library.name, variant)
        if key not in self._modules:
            path = library.variant_cubin(variant)
            with open(path + ".json", encoding="utf-8") as f:
                manifest = json.load(f)
            ct = {kernel["name"]: kernel.get("ct_params", {}) for kernel in manifest.get("kernels", [])}
            self._modules[key] = (load(path).kernels, ct)
        return self._modules[key]

    def _small_kk(self, library, variant):
        """(KK, TN, WC) of a knn_small variant - the list length, the corpus tile's columns (BN WC) and the
        warps sharing a query row block (WC) - from its manifest, read once."""
        key = (library.name, variant, "KK")
        if key not in self._modules:
            ct = library.ct_params(variant)
            wc = int(ct.get("WC", 1))
            self._modules[key] = (int(ct["KK"]), int(ct["BN"]) * wc, wc)
        return self._modules[key]

    def _small_serves(self, b, n, m, d, k):
        """Whether the knn_small library (kernels/kmeans/library_knn_small_bf16.json) takes the shape: its
        domain (k <= 64; D 64, 128 or 256; B * splits within the grid), where it is faster than the knn
        library's wgmma kernels: less work than SMALL_WORK_LOG2 of k's class (for k = 1 every shape: the knn
        library keeps ten-entry lists)."""
        if not (1 <= k <= 64 and d in (64, 128, 256) and b <= 65535 and n <= 2147483392 and m <= 1073741824):
            return False
        bound = next(log2 for kk, log2 in SMALL_WORK_LOG2 if k <= kk)
        return b * n * m * d < 2.0 ** bound

    def _small_per_sm(self, small, name, device):
        """Blocks of knn_small variant `name` that fit on an SM of `device` at once (the driver's occupancy for
        its 256 threads, registers and shared memory, none of which depends on the shape), read once."""
        key = (small.name, name, "per_sm", str(device))
        if key not in self._modules:
            kk, _, wc = self._small_kk(small, name)
            d = int(small.ct_params(name)["HD"])
            shapes = ((1, 1, d), (1, 1, d), (1, 1, wc, kk), (1, 1, wc, kk), (1, 1))   # any legal shape
            address = 1 << 40       # checked for alignment only: the query reads and writes nothing
            with torch.cuda.device(device):
                self._modules[key] = small.variants[name].occupancy(
                    *(DevicePtr(address, shape=s) for s in shapes), 1.0, 1.0)
        return self._modules[key]

    def _small_splits(self, b, n, m, tn, wc, kk, device, per_sm=1):
        """The corpus splits of a knn_small launch whose blocks hold 128 / wc query rows, whose corpus tiles
        tn columns and whose lists kk entries, per_sm of whose blocks fit on an SM at once: as many as fill
        one wave without starting a second - per_sm blocks per SM for k = 1 lists, one for longer lists (whose
        splits cost more to merge) - so 1 when the query blocks fill that alone; each split SPLIT_TILES tiles
        or more (one for lists longer than 10, whose first tiles cost the most), and at most WC_SPLITS with
        column groups and lists longer than 1 (knn_merge's work grows with the lists per row, splits x WC).
        From bench/knn_split_sweep.py (a grid one block past a wave, 272 blocks for 264 places, ran 1.5x
        longer than 256) and the held-out runs of bench/results/."""
        blocks, tiles = b * -(-n // (128 // wc)), -(-m // tn)
        sms = self._sms.get(device)
        if sms is None:
            sms = self._sms[device] = torch.cuda.get_device_properties(device).multi_processor_count
        wave = sms * (max(1, per_sm) if kk == 1 else 1)
        if blocks >= wave:
            return 1
        cap = tiles // SPLIT_TILES if kk <= 10 else tiles
        if wc > 1 and kk > 1:
            cap = min(cap, WC_SPLITS)
        return max(1, min(wave // blocks, cap, 65535))

    def _knn_small(self, small, name, x, c, k, metric, squeeze, splits=None):
        """Kernels.knn through knn_small variant `name`: one launch, or corpus splits (`splits`, else
        _small_splits) and the variant's column groups (WC warps sharing query rows), each with its own lists
        per row, merged by knn_merge."""
        b, n, _ = x.shape
        m = c.shape[1]
        kk, tn, wc = self._small_kk(small, name)
        if not 1 <= k <= kk:
            raise ValueError("cakeir.kmeans.knn: k = %d (variant %s supports 1..%d)" % (k, name, kk))
        nscale, oscale = (1.0, 1.0) if metric == "l2" else (0.0, -0.5)
        sp = splits or self._small_splits(b, n, m, tn, wc, kk, x.device, self._small_per_sm(small, name, x.device))
        if not 1 <= sp <= 65535:
            raise ValueError("cakeir.kmeans.knn: splits = %d (1..65535)" % sp)
        lp = sp * wc
        dist = torch.empty((b, n, kk), dtype=torch.float32, device=x.device)
        idx = torch.empty((b, n, kk), dtype=torch.int32, device=x.device)
        qn = torch.empty((b, n), dtype=torch.float32, device=x.device)     # not written for LP = 1
        if lp == 1:
            small.variants[name](x, c, dist.view(b, n, 1, kk), idx.view(b, n, 1, kk), qn, nscale, oscale)
        else:
            kernels, _ = self._library_module(small, name)
            pd = torch.empty((b, n, lp, kk), dtype=torch.float32, device=x.device)
            pi = torch.empty((b, n, lp, kk), dtype=torch.int32, device=x.device)
            kernels["knn_small"](x, c, pd, pi, qn, nscale, oscale)
            kernels["knn_merge"](pd, pi, qn, dist, idx, oscale)
        dist, idx = dist[..., :k], idx[..., :k]
        return (dist[0], idx[0]) if squeeze else (dist, idx)

    def _knn_argmin(self, library, assign, name, x, c, metric, squeeze):
        """Kernels.knn for k = 1: variant `name` of the k-means assignment library `assign` (argmin of
        CN - 2 x.c, ties to the smaller index, as knn's) with the knn library's row_norms for CN and QN."""
        b, n, d = x.shape
        m = c.shape[1]
        norms_kernel = self._library_module(library, library.variant_name(B=b, N=n, K=m, D=d, k=1))[0]["row_norms"]
        scale = 1.0 if metric == "l2" else 0.0
        bn = 0 if assign.variants[name].name == "kmeans_assign_sm80" else self._assign_bn(assign, name)
        cn = torch.empty((b, -(-m // (2 * bn)) * 2 * bn if bn else m), dtype=torch.float32, device=x.device)
        norms_kernel(c, cn, scale)                          # +inf past M: the padded columns never win
        qn = torch.empty((b, n), dtype=torch.float32, device=x.device)
        norms_kernel(x, qn, scale)
        idx = torch.empty((b, n, 1), dtype=torch.int32, device=x.device)
        mind = torch.empty((b, n, 1), dtype=torch.float32, device=x.device)
        assign.variants[name](x, c, cn, idx.view(b, n), mind.view(b, n))
        dist = torch.add(qn.view(b, n, 1), mind, alpha=1.0) if metric == "l2" else mind.mul_(-0.5)
        return (dist[0], idx[0]) if squeeze else (dist, idx)

    def knn_route(self, b, n, m, d, k, dtype=torch.bfloat16, device="cuda", splits=None):
        """The route Kernels.knn takes for a shape when no variant is named: ("assign", variant) - the k-means
        assignment for k = 1 with many queries (ARGMIN_BLOCKS, or ARGMIN_BLOCKS_LARGE with much work) and a
        corpus of ARGMIN_CORPUS rows or more, when the folder has both knn_<dtype>/ and kmeans_assign_<dtype>/;
        ("small", variant, splits) - the knn_small library where _small_serves; ("knn", None, None) - the knn
        library or the knn_sm90 builds."""
        library, assign = self._library("knn", dtype), self._library("kmeans_assign", dtype)
        blocks = b * -(-n // 128)
        many = blocks >= ARGMIN_BLOCKS or (blocks >= ARGMIN_BLOCKS_LARGE and b * n * m * d >= 2.0 ** ARGMIN_WORK_LOG2)
        if k == 1 and splits is None and many and m >= ARGMIN_CORPUS and library is not None and assign is not None:
            self._targeted(library, device)
            return ("assign", self._targeted(assign, device).variant_name(B=b, N=n, K=m, D=d), None)
        small = self._library("knn_small", dtype)
        if small is not None and self._small_serves(b, n, m, d, k):
            name = self._targeted(small, device).variant_name(B=b, N=n, K=m, D=d, k=k)
            if name is not None:
                kk, tn, wc = self._small_kk(small, name)
                return ("small", name, splits or self._small_splits(b, n, m, tn, wc, kk, device,
                                                                     self._small_per_sm(small, name, device)))
        return ("knn", None, None)

    def _assign_bn(self, library, variant):
        """BN (the centroid tile) of a kmeans_assign variant, from its manifest, read once."""
        key = (library.name, variant, "BN")
        if key not in self._modules:
            self._modules[key] = int(library.ct_params(variant)["BN"])
        return self._modules[key]

    # ------------------------------------------------------------------------------------- assignment
    def assign(self, x, c, c_sq=None, labels=None, mind=None, variant=None):
        """(labels i32 [B, N], mind f32 [B, N]): the nearest centroid of every point, ties to the smaller
        index, and ||c||^2 - 2 <x, c> of it (the squared distance without ||x||^2).  c_sq: ||c||^2 f32 [B, K]
        if the caller has it.  With a library folder kmeans_assign_<dtype>/ (kernels/kmeans/
        library_assign_bf16.json) its dispatch table picks the variant (by shape, and the device's arch);
        variant: one of the library's variants by name instead (the table bypassed: for measuring them)."""
        (x, squeeze), (c, _) = _batched(x, 3), _batched(c, 3)
        b, n, d = x.shape
        k = c.shape[1]
        library = self._library("kmeans_assign", x.dtype)
        norms_kernel = None                                 # the library's variants take ||c||^2 from the caller
        if library is not None:
            self._targeted(library, x.device)
            if variant is None:
                variant = library.variant_name(B=b, N=n, K=k, D=d)
            elif variant not in library.variants:
                raise ValueError("cakeir.kmeans.assign: library %s has no variant %r (variants: %s)"
                                 % (library.name, variant, ", ".join(library.variants)))
            kernel = library.variants[variant]
            bn = 0 if kernel.name == "kmeans_assign_sm80" else self._assign_bn(library, variant)
        else:
            if variant is not None:
                raise ValueError("cakeir.kmeans.assign: variant %r needs a library folder kmeans_assign_<dtype>/"
                                 % (variant,))
            if x.device.type != "cuda" or torch.cuda.get_device_capability(x.device)[0] >= 9:
                kernels, ct = self._module("kmeans_assign_sm90", x.dtype, d)
                name = "kmeans_assign"
            else:
                kernels, ct = self._module("kmeans_assign_sm80", x.dtype, d)
                name = "kmeans_assign_sm80"
            kernel = kernels[name]
            bn = int(ct[name]["BN"])
            norms_kernel = kernels.get("row_norms")         # absent from the sm_80 build
        if kernel.name == "kmeans_assign_sm80":         # takes the norms unpadded, [B, K]
            if c_sq is None:
                norms = (c.float() * c.float()).sum(-1)
            else:
                norms = c_sq.reshape(b, k)
                if norms.dtype != torch.float32 or not norms.is_contiguous():
                    norms = norms.float().contiguous()
            labels = torch.empty((b, n), dtype=torch.int32, device=x.device) if labels is None else labels.view(b, n)
            mind = torch.empty((b, n), dtype=torch.float32, device=x.device) if mind is None else mind.view(b, n)
            kernel(x, c, norms, labels, mind)
            return (labels[0], mind[0]) if squeeze else (labels, mind)
        kp = -(-k // (2 * bn)) * 2 * bn
        if c_sq is None and norms_kernel is not None:
            norms = torch.empty((b, kp), dtype=torch.float32, device=x.device)
            norms_kernel(c, norms, 1.0)
        else:
            norms = torch.full((b, kp), float("inf"), dtype=torch.float32, device=x.device)
            norms[:, :k] = (c.float() * c.float()).sum(-1) if c_sq is None else c_sq.reshape(b, k)
        labels = torch.empty((b, n), dtype=torch.int32, device=x.device) if labels is None else labels.view(b, n)
        mind = torch.empty((b, n), dtype=torch.float32, device=x.device) if mind is None else mind.view(b, n)
        kernel(x, c, norms, labels, mind)
        return (labels[0], mind[0]) if squeeze else (labels, mind)

    # ------------------------------------------------------------------------------------- update
    def centroid_update(self, x, labels, old, new=None, variant=""):
        """(new [B, K, D] of x's dtype, counts i32 [B, K]): the mean of the points of each cluster; a cluster
        without points keeps its old centroid.  Counting sort of the labels, segmented sums, finalize
        (kernels/kmeans/centroid_update.cake); K above the sort's bin count uses global atomics instead.
        variant: a suffix of the cubin name (another build of centroid_update)."""
        (x, squeeze), (old, _) = _batched(x, 3), _batched(old, 3)
        b, n, d = x.shape
        k = old.shape[1]
        labels = labels.view(b, n)
        kernels, ct = self._module("centroid_update", x.dtype, d, variant)
        work = torch.zeros(b * k * d + b * k, dtype=torch.int32, device=x.device)
        sums = work[:b * k * d].view(torch.float32).view(b, k, d)
        counts = work[b * k * d:].view(b, k)
        new = torch.empty_like(old) if new is None else new.view(b, k, d)
        if k <= int(ct["label_histogram"]["BINS"]):
            cursor = torch.empty((b, k), dtype=torch.int32, device=x.device)
            order = torch.empty((b, n, 2), dtype=torch.int32, device=x.device)     # (point, label) sorted
            kernels["label_histogram"](L=labels, Counts=counts)
            kernels["label_offsets"](Counts=counts, Cursor=cursor)
            kernels["label_scatter"](L=labels, Cursor=cursor, PS=order)
            kernels["segment_sums"](X=x, PS=order, Sums=sums)
        else:
            kernels["centroid_accumulate"](X=x, L=labels, Sums=sums, Counts=counts)
        kernels["centroid_finalize"](Sums=sums, Counts=counts, Old=old, New=new)
        return (new[0], counts[0]) if squeeze else (new, counts)

    # ------------------------------------------------------------------------------------- KNN
    def knn(self, queries, corpus, k=10, metric="l2", splits=None, variant=None):
        """(dist f32 [B, Q, k], idx i32 [B, Q, k]): the k nearest rows of corpus [B, M, D] to every row of
        queries [B, Q, D], sorted ascending by (distance, index).  metric "l2": squared L2 distances; "ip":
        the k largest inner products (dist holds the inner products, descending).  k is at most the kernel's
        KK (10, 16, 32 or 64 in the builds of bench/kmeans_build.sh); rows past M come back as (+inf, -1) when M < k.  splits: how many
        pieces the corpus is cut into (default: about one work unit per cluster of two SMs when Q is small).
        With a library folder knn_small_<dtype>/ (kernels/kmeans/library_knn_small_bf16.json), a shape it
        serves (_small_serves) runs its knn_small variant:
        one launch (norms, lists and merge in the kernel) or, when the query blocks alone leave SMs idle, the
        corpus cut into `splits` pieces (default: _small_splits) whose lists knn_merge merges (`variant` may name
        one of its variants).
        k = 1 with many queries (ARGMIN_BLOCKS) and a corpus of ARGMIN_CORPUS rows or more runs the k-means
        assignment when the folder has kmeans_assign_<dtype>/ (_knn_argmin).  knn_route says which route a shape
        takes.
        With a library folder knn_<dtype>/ (kernels/kmeans/library_knn_bf16.json) its dispatch table picks the
        variant (by B, Q, M, D and k; row_norms and knn_merge come from the chosen variant's cubin), and
        `variant` names one of the library's variants instead (the table bypassed).  Without one, variant: a
        suffix of the cubin name (another build of knn_sm90); by default the first of the builds "", "_k16",
        "_k32", "_k64" (KK = 10, 16, 32, 64) that holds k."""
        (x, squeeze), (c, _) = _batched(queries, 3), _batched(corpus, 3)
        b, n, d = x.shape
        m = c.shape[1]
        if metric not in ("l2", "ip"):
            raise ValueError("cakeir.kmeans.knn: metric %r (l2 or ip)" % (metric,))
        small = self._library("knn_small", x.dtype)
        if not variant:
            route = self.knn_route(b, n, m, d, k, x.dtype, x.device, splits)
            if route[0] == "assign":
                return self._knn_argmin(self._library("knn", x.dtype), self._library("kmeans_assign", x.dtype),
                                        route[1], x, c, metric, squeeze)
            if route[0] == "small":
                return self._knn_small(small, route[1], x, c, k, metric, squeeze, route[2])
        elif small is not None and variant in small.variants:
            return self._knn_small(self._targeted(small, x.device), variant, x, c, k, metric, squeeze, splits)
        library = self._library("knn", x.dtype)
        if library is not None:
            self._targeted(library, x.device)
            if variant is None or variant == "":
                variant = library.variant_name(B=b, N=n, K=m, D=d, k=k)
            elif variant not in library.variants:
                raise ValueError("cakeir.kmeans.knn: library %s has no variant %r (variants: %s)"
                                 % (library.name, variant, ", ".join(library.variants)))
            kernels, ct = self._library_module(library, variant)
        elif variant is None or variant == "":
            variant = None
            for candidate in ("", "_k16", "_k32", "_k64"):
                name = "knn_sm90_%s_d%d%s.cubin" % (_TYPE_NAMES.get(x.dtype, "?"), d, candidate)
                if os.path.isfile(os.path.join(self.folder, name)):
                    kernels, ct = self._module("knn_sm90", x.dtype, d, candidate)
                    if int(ct["knn_topk"]["KK"]) >= k:
                        variant = candidate
                        break
            if variant is None:
                raise ValueError("cakeir.kmeans.knn: k = %d: no knn_sm90 build for D = %d, %s holds it (KK = 10, "
                                 "16, 32, 64 are built; k <= 64)" % (k, d, x.dtype))
            kernels, ct = self._module("knn_sm90", x.dtype, d, variant)
        else:
            kernels, ct = self._module("knn_sm90", x.dtype, d, variant)
        kk, bn = int(ct["knn_topk"]["KK"]), int(ct["knn_topk"]["BN"])
        if not 1 <= k <= kk:
            raise ValueError("cakeir.kmeans.knn: k = %d (this build supports 1..%d)" % (k, kk))

        lists_per_split = 1 if int(ct["knn_topk"].get("QL", 0)) == 1 else 4   # QL = 1: one list per row, quad-wide
        pairs = -(-m // (2 * bn))
        if splits is None:
            row_pairs = b * -(-n // 256)
            clusters = torch.cuda.get_device_properties(x.device).multi_processor_count // 2
            splits = max(1, min(pairs, clusters // row_pairs))
        kp = -(-pairs // splits) * splits * 2 * bn
        scale = 1.0 if metric == "l2" else 0.0
        norms = torch.empty((b, kp), dtype=torch.float32, device=x.device)
        kernels["row_norms"](c, norms, scale)
        qn = torch.empty((b, n), dtype=torch.float32, device=x.device)
        kernels["row_norms"](x, qn, scale)
        pd = torch.empty((b, n, lists_per_split * splits, kk), dtype=torch.float32, device=x.device)
        pi = torch.empty((b, n, lists_per_split * splits, kk), dtype=torch.int32, device=x.device)
        dist = torch.empty((b, n, kk), dtype=torch.float32, device=x.device)
        idx = torch.empty((b, n, kk), dtype=torch.int32, device=x.device)
        kernels["knn_topk"](x, c, norms, pd, pi)
        kernels["knn_merge"](pd, pi, qn, dist, idx, 1.0 if metric == "l2" else -0.5)
        dist, idx = dist[..., :k], idx[..., :k]
        return (dist[0], idx[0]) if squeeze else (dist, idx)

    # ------------------------------------------------------------------------------------- Lloyd
    def kmeans(self, x, k, iters=25, tol=1e-4, init="k-means++", seed=0):
        """(centroids [B, K, D], labels i32 [B, N], iterations run): Lloyd's algorithm from `init`
        ("k-means++" or "random" points of x, or a tensor [B, K, D]); stops after `iters` iterations or when
        no centroid moved by more than tol (relative to the largest centroid norm)."""
        (x, squeeze) = _batched(x, 3)
        c = initial_centroids(x, k, init, seed)
        labels = None
        done = 0
        for done in range(1, iters + 1):
            labels, _ = self.assign(x, c)
            new, _ = self.centroid_update(x, labels, c)
            shift = (new.float() - c.float()).norm(dim=-1).amax()
            scale = c.float().norm(dim=-1).amax().clamp_min(1e-12)
            c = new
            if float(shift) <= tol * float(scale):
                break
        if labels is None:
            labels, _ = self.assign(x, c)
        return (c[0], labels[0], done) if squeeze else (c, labels, done)


def initial_centroids(x, k, init="k-means++", seed=0):
    """[B, K, D] of x's dtype: k distinct points of each batch of x [B, N, D], chosen at random ("random") or
    by k-means++ (each next centroid drawn with probability proportional to its squared distance to the
    nearest one chosen so far), or `init` itself when it is a tensor."""
    if isinstance(init, torch.Tensor):
        return init.view(x.shape[0], k, x.shape[2]).to(x.dtype)
    b, n, d = x.shape
    if k > n:
        raise ValueError("cakeir.kmeans: k = %d centroids from %d points" % (k, n))
    gen = torch.Generator(device=x.device).manual_seed(seed)
    if init == "random":
        idx = torch.stack([torch.randperm(n, generator=gen, device=x.device)[:k] for _ in range(b)])
        return torch.gather(x, 1, idx.unsqueeze(-1).expand(b, k, d))
    if init != "k-means++":
        raise ValueError("cakeir.kmeans: init %r (k-means++, random or a tensor)" % (init,))
    xf = x.float()
    chosen = torch.empty((b, k), dtype=torch.long, device=x.device)
    chosen[:, 0] = torch.randint(0, n, (b,), generator=gen, device=x.device)
    best = torch.full((b, n), float("inf"), device=x.device)
    for j in range(1, k):
        last = torch.gather(xf, 1, chosen[:, j - 1].view(b, 1, 1).expand(b, 1, d))
        best = torch.minimum(best, ((xf - last) ** 2).sum(-1))
        weights = best.clamp_min(0)
        weights = torch.where(weights.sum(-1, keepdim=True) > 0, weights, torch.ones_like(weights))
        chosen[:, j] = torch.multinomial(weights, 1, generator=gen).squeeze(1)
    return torch.gather(x, 1, chosen.unsqueeze(-1).expand(b, k, d))


# ============================================================================================ torch operators
# cakeir::kmeans_assign, cakeir::centroid_update, cakeir::knn and cakeir::kmeans: torch.library custom operators, so
# that torch.compile(fullgraph=True) traces through them (their fake implementations give the output shapes).
# On CUDA tensors they run the CAKE kernels of default_kernels(); on CPU tensors a float32 torch reference
# with the same contract (the oracle the GPU results are compared with, and what fake tensors describe).

_DEFAULT: Dict[str, "Kernels"] = {}


def default_kernels():
    """The Kernels of $CAKE_KMEANS_CUBINS (loaded once)."""
    folder = os.environ.get("CAKE_KMEANS_CUBINS", "")
    if folder not in _DEFAULT:
        _DEFAULT[folder] = Kernels(folder)
    return _DEFAULT[folder]


def _scores(x, c):
    """float32 ||c||^2 - 2 <x, c> [B, N, K] (x [B, N, D], c [B, K, D])."""
    xf, cf = x.float(), c.float()
    return (cf * cf).sum(-1).unsqueeze(1) - 2.0 * torch.bmm(xf, cf.transpose(1, 2))


def _assign_reference(x, c):
    (x, squeeze), (c, _) = _batched(x, 3), _batched(c, 3)
    mind, labels = _scores(x, c).min(dim=-1)          # the first minimum: ties go to the smaller index
    labels = labels.to(torch.int32)
    return (labels[0], mind[0]) if squeeze else (labels, mind)


def _update_reference(x, labels, old):
    (x, squeeze), (old, _) = _batched(x, 3), _batched(old, 3)
    b, n, d = x.shape
    k = old.shape[1]
    lab = labels.reshape(b, n).long() % k
    sums = torch.zeros((b, k, d), dtype=torch.float32, device=x.device)
    sums.scatter_add_(1, lab.unsqueeze(-1).expand(b, n, d), x.float())
    counts = torch.zeros((b, k), dtype=torch.int32, device=x.device)
    counts.scatter_add_(1, lab, torch.ones_like(lab, dtype=torch.int32))
    mean = sums / counts.clamp_min(1).unsqueeze(-1).float()
    new = torch.where(counts.unsqueeze(-1) > 0, mean.to(old.dtype), old)
    return (new[0], counts[0]) if squeeze else (new, counts)


def _knn_reference(queries, corpus, k, metric):
    (x, squeeze), (c, _) = _batched(queries, 3), _batched(corpus, 3)
    b, n, _ = x.shape
    m = c.shape[1]
    if metric == "l2":
        score = _scores(x, c)
        shift = (x.float() * x.float()).sum(-1, keepdim=True)
    else:
        score = -torch.bmm(x.float(), c.float().transpose(1, 2))
        shift = None
    order = torch.sort(score, dim=-1, stable=True)       # ties: the smaller index first
    take = min(k, m)
    dist, idx = order.values[..., :take], order.indices[..., :take].to(torch.int32)
    dist = dist + shift if shift is not None else -dist
    if take < k:
        dist = torch.cat([dist, torch.full((b, n, k - take), float("inf"), device=x.device)], -1)
        idx = torch.cat([idx, torch.full((b, n, k - take), -1, dtype=torch.int32, device=x.device)], -1)
    return (dist[0], idx[0]) if squeeze else (dist, idx)


@torch.library.custom_op("cakeir::kmeans_assign", mutates_args=(), device_types="cuda")
def kmeans_assign(x: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(labels i32, mind f32) of Kernels.assign; x [B, N, D] or [N, D], c [B, K, D] or [K, D]."""
    return default_kernels().assign(x, c)


@torch.library.custom_op("cakeir::centroid_update", mutates_args=(), device_types="cuda")
def centroid_update(x: torch.Tensor, labels: torch.Tensor, old: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(new centroids, counts i32) of Kernels.centroid_update."""
    return default_kernels().centroid_update(x, labels, old)


@torch.library.custom_op("cakeir::knn", mutates_args=(), device_types="cuda")
def knn(queries: torch.Tensor, corpus: torch.Tensor, k: int = 10, metric: str = "l2") -> tuple[torch.Tensor,
                                                                                               torch.Tensor]:
    """(dist f32, idx i32) [.., Q, k] of Kernels.knn."""
    return default_kernels().knn(queries, corpus, k, metric)


@torch.library.custom_op("cakeir::kmeans", mutates_args=(), device_types="cuda")
def kmeans(x: torch.Tensor, k: int, iters: int = 25, tol: float = 1e-4, init: str = "k-means++",
           seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(centroids, labels i32, iterations run as an int64 scalar tensor) of Kernels.kmeans."""
    c, labels, done = default_kernels().kmeans(x, k, iters, tol, init, seed)
    return c, labels, torch.tensor(done, dtype=torch.int64)


@kmeans_assign.register_kernel("cpu")
def _kmeans_assign_cpu(x, c):
    return _assign_reference(x, c)


@centroid_update.register_kernel("cpu")
def _centroid_update_cpu(x, labels, old):
    return _update_reference(x, labels, old)


@knn.register_kernel("cpu")
def _knn_cpu(queries, corpus, k=10, metric="l2"):
    return _knn_reference(queries, corpus, k, metric)


@kmeans.register_kernel("cpu")
def _kmeans_cpu(x, k, iters=25, tol=1e-4, init="k-means++", seed=0):
    (xb, squeeze) = _batched(x, 3)
    c = initial_centroids(xb, k, init, seed)
    labels, done = None, 0
    for done in range(1, iters + 1):
        labels, _ = _assign_reference(xb, c)
        new, _ = _update_reference(xb, labels, c)
        moved = float((new.float() - c.float()).norm(dim=-1).amax())
        scale = float(c.float().norm(dim=-1).amax().clamp_min(1e-12))
        c = new
        if moved <= tol * scale:
            break
    if labels is None:
        labels, _ = _assign_reference(xb, c)
    out = (c[0], labels[0]) if squeeze else (c, labels)
    return out[0], out[1], torch.tensor(done, dtype=torch.int64)


@kmeans_assign.register_fake
def _kmeans_assign_fake(x, c):
    return x.new_empty(x.shape[:-1], dtype=torch.int32), x.new_empty(x.shape[:-1], dtype=torch.float32)


@centroid_update.register_fake
def _centroid_update_fake(x, labels, old):
    return torch.empty_like(old), old.new_empty(old.shape[:-1], dtype=torch.int32)


@knn.register_fake
def _knn_fake(queries, corpus, k=10, metric="l2"):
    shape = queries.shape[:-1] + (k,)
    return queries.new_empty(shape, dtype=torch.float32), queries.new_empty(shape, dtype=torch.int32)


@kmeans.register_fake
def _kmeans_fake(x, k, iters=25, tol=1e-4, init="k-means++", seed=0):
    return (x.new_empty(x.shape[:-2] + (k, x.shape[-1])), x.new_empty(x.shape[:-1], dtype=torch.int32),
            x.new_empty((), dtype=torch.int64))
