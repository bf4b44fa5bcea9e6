"""The benchmark cases: one class per sample (samples/<sample>.cake).

A case says, for one sample, which shapes to run, which buffers a shape needs (inputs are filled with fresh
random values, outputs poisoned with NaN), which kernel calls make up one run (block_reduce_sum takes
several passes), the torch reference of every checked output, the peer (the torch / cuBLAS / copy
operation it is compared with) and the work of one run (bytes moved or flops).

Everything here but reference() / peer() / fill() works without torch (the dry run plans every call
with fake device addresses), so buffers are described by shape and CAKE dtype name.  Shapes that the
kernel's `requires` refuses are listed too, marked expect_reject: the runtime must refuse them.
Tile sizes come from the manifest's compile-time parameters, so -D overrides keep the shapes legal."""

import math

L2_BYTES_DEFAULT = 60 << 20

TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "i32": "int32", "u8": "uint8"}
SIZES = {"bf16": 2, "f16": 2, "f32": 4, "i32": 4, "u8": 1}


def torch_dtype(torch, name):
    return getattr(torch, TORCH_DTYPES[name])


class Buf:
    """One buffer of a run: shape, CAKE dtype name and role: 'in' (random), 'out' (NaN-poisoned, checked),
    'tmp' (NaN-poisoned, not checked on its own)."""

    def __init__(self, shape, dtype, role):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.role = role

    @property
    def numel(self):
        return math.prod(self.shape)

    @property
    def nbytes(self):
        return self.numel * SIZES[self.dtype]


class Shape:
    """One problem size: dims by name (N, or R/C, or M/N/K), a label, and flags:
    quick: part of --quick; accept: used by the sample's acceptance check;
    expect_reject: the kernel's `requires` refuses it (the run checks that the runtime says so)."""

    def __init__(self, label, quick=True, accept=False, expect_reject=False, **dims):
        self.label = label
        self.dims = dims
        self.quick = quick
        self.accept = accept
        self.expect_reject = expect_reject

    def __getitem__(self, key):
        return self.dims[key]


ROTATE_TARGET_FACTOR = 4      # rotate until the sets together hold this many times the L2 size
MAX_SETS = 32


def rotation_sets(specs, l2_bytes):
    """How many independently filled buffer sets the timed runs rotate over: 1 when one run's data does not
    fit in L2, else enough sets to cover ROTATE_TARGET_FACTOR x L2 (at most MAX_SETS)."""
    working_set = sum(spec.nbytes for spec in specs.values())
    if working_set >= l2_bytes:
        return 1
    return max(2, min(MAX_SETS, math.ceil(ROTATE_TARGET_FACTOR * l2_bytes / max(working_set, 1))))


class Case:
    sample = ""              # samples/<sample>.cake
    metric = "GB/s"          # what work() counts: "GB/s" (bytes) or "TFLOP/s" (flops)
    f32_tolerance = 1e-5     # relative error bound for f32 outputs; 16-bit outputs use 1e-2
    peer_name = ""

    def __init__(self, manifest, cake):
        self.manifest = manifest
        self.cake = cake
        self.kernels = {k["name"]: k for k in manifest["kernels"]}
        first = manifest["kernels"][0]
        self.ct = dict(first.get("ct_params", {}))
        self.main_kernel = first

    # ---- what to run
    def variants(self):
        """(kernel name, dtype name) pairs: each kernel of the module, named by the dtype of its first param."""
        return [(k["name"], k["params"][0]["dtype"]) for k in self.manifest["kernels"]]

    def notes(self):
        return []

    def shapes(self):
        raise NotImplementedError

    def buffers(self, shape, dtype):
        raise NotImplementedError

    def calls(self, kernel, shape, b):
        """[(kernel name, args)] of one run, in order; b maps buffer names to tensors (or fake pointers)."""
        raise NotImplementedError

    # ---- torch side
    def fill(self, torch, name, tensor, gen):
        """Fresh random values (never zeros): standard normal, rounded to the buffer's dtype."""
        tensor.copy_(torch.randn(tensor.shape, generator=gen, device=tensor.device, dtype=torch.float32))

    def reference(self, torch, shape, b):
        """{output name: reference tensor (float32/float64)} for every 'out' buffer."""
        raise NotImplementedError

    def peer(self, torch, shape, dtype, b):
        """A zero-argument callable doing the peer operation on this buffer set."""
        raise NotImplementedError

    def work(self, shape, dtype):
        """Bytes (GB/s cases) or flops (TFLOP/s cases) of one run."""
        raise NotImplementedError

    def peer_work(self, shape, dtype):
        return self.work(shape, dtype)

    def tolerance(self, dtype):
        return self.f32_tolerance if dtype == "f32" else 1e-2


# ---------------------------------------------------------------------------------------------------------
class VectorAdd(Case):
    """C = A + B over bf16 vectors; peer: a device-to-device copy moving the same bytes (read + written)."""
    sample = "vector_add"
    metric = "GB/s"
    f32_tolerance = 1e-5
    peer_name = "d2d copy (same bytes)"

    def shapes(self):
        return [Shape("N=2^28", N=1 << 28, accept=True), Shape("N=4000", N=4000), Shape("N=1007", N=1007),
                Shape("N=1", N=1), Shape("N=2^20", N=1 << 20, quick=False)]

    def buffers(self, shape, dtype):
        n = shape["N"]
        return {"A": Buf((n,), dtype, "in"), "B": Buf((n,), dtype, "in"), "C": Buf((n,), dtype, "out")}

    def calls(self, kernel, shape, b):
        return [(kernel, (b["A"], b["B"], b["C"]))]

    def reference(self, torch, shape, b):
        return {"C": b["A"].double() + b["B"].double()}

    def _copy_bytes(self, shape, dtype):
        return self.work(shape, dtype) // 2          # a copy of X bytes reads X and writes X

    def peer(self, torch, shape, dtype, b):
        size = max(self._copy_bytes(shape, dtype), 1)
        src = torch.randint(0, 255, (size,), dtype=torch.uint8, device=b["A"].device)
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)

    def work(self, shape, dtype):
        return 3 * shape["N"] * SIZES[dtype]

    def peer_work(self, shape, dtype):
        return 2 * max(self._copy_bytes(shape, dtype), 1)


# ---------------------------------------------------------------------------------------------------------
class BlockReduceSum(Case):
    """Sum of an f32 vector: pass 1 writes one partial per block, then the same kernel reduces the partials
    until one value is left.  Checked: the pass-1 partials (all of them) and the final sum.  Peer: torch.sum."""
    sample = "block_reduce_sum"
    metric = "GB/s"
    f32_tolerance = 1e-4
    peer_name = "torch.sum"

    def chunk(self):
        """Elements per block: THREADS * ITEMS * 4 (see the sample), checked against the manifest's grid."""
        chunk = self.ct["THREADS"] * self.ct["ITEMS"] * 4
        grid = self.main_kernel["launch"]["grid"][0]
        for n, blocks in ((chunk, 1), (chunk + 1, 2)):
            got = self.cake.eval_expression(str(grid), N=n, **self.ct)
            if got != blocks:
                raise RuntimeError("block_reduce_sum: grid %s gives %d blocks for N = %d, expected %d (chunk %d)"
                                   % (grid, got, n, blocks, chunk))
        return chunk

    def pass_sizes(self, n):
        """Element counts of the partial buffers of each pass: [G1, G2, ..., 1]."""
        chunk, sizes = self.chunk(), []
        while True:
            n = -(-n // chunk)
            sizes.append(n)
            if n == 1:
                return sizes

    def shapes(self):
        return [Shape("N=2^28", N=1 << 28), Shape("N=4000", N=4000), Shape("N=1007", N=1007), Shape("N=1", N=1),
                Shape("N=2^22+3", N=(1 << 22) + 3, quick=False)]

    def buffers(self, shape, dtype):
        bufs = {"X": Buf((shape["N"],), dtype, "in")}
        sizes = self.pass_sizes(shape["N"])
        for i, g in enumerate(sizes):
            last = i == len(sizes) - 1
            bufs["P%d" % (i + 1)] = Buf((g,), dtype, "out" if i == 0 or last else "tmp")
        return bufs

    def calls(self, kernel, shape, b):
        names = ["X"] + ["P%d" % (i + 1) for i in range(len(self.pass_sizes(shape["N"])))]
        return [(kernel, (b[src], b[dst])) for src, dst in zip(names, names[1:])]

    def fill(self, torch, name, tensor, gen):
        # mean 1: the sum stays far from 0, so the relative error of the total is meaningful
        tensor.copy_(torch.randn(tensor.shape, generator=gen, device=tensor.device, dtype=torch.float32) + 1.0)

    def reference(self, torch, shape, b):
        x = b["X"].double()
        sizes = self.pass_sizes(shape["N"])
        chunk = self.chunk()
        padded = torch.nn.functional.pad(x, (0, sizes[0] * chunk - x.numel()))
        ref = {"P1": padded.view(sizes[0], chunk).sum(1)}
        ref["P%d" % len(sizes)] = x.sum().reshape(1)
        return ref

    def peer(self, torch, shape, dtype, b):
        x = b["X"]
        return lambda: torch.sum(x)

    def work(self, shape, dtype):
        return shape["N"] * SIZES[dtype]


# ---------------------------------------------------------------------------------------------------------
class RowSoftmax(Case):
    """Y = softmax(X, dim=1) per row; each kernel of the module is one dtype variant.  Peer: torch.softmax in
    the same dtype.  Acceptance: at least as fast as torch on the large shapes."""
    sample = "row_softmax"
    metric = "GB/s"
    f32_tolerance = 1e-4
    peer_name = "torch.softmax"

    def notes(self):
        dtypes = sorted({d for _, d in self.variants()})
        missing = [d for d in ("f16", "bf16") if d not in dtypes]
        if missing:
            return ["row_softmax supports only %s (the sample has no %s kernel): benchmarked %s only"
                    % ("/".join(dtypes), "/".join(missing), "/".join(dtypes))]
        return ["row_softmax: benchmarked %s" % "/".join(dtypes)]

    def shapes(self):
        return [Shape("4096x1024", R=4096, C=1024, accept=True),
                Shape("4096x8192", R=4096, C=8192, accept=True, quick=False),
                Shape("16384x4096", R=16384, C=4096, accept=True),
                Shape("65536x1024", R=65536, C=1024, accept=True, quick=False),
                Shape("65536x8192", R=65536, C=8192, accept=True),
                Shape("1x8", R=1, C=8), Shape("37x1000", R=37, C=1000), Shape("1007x1032", R=1007, C=1032),
                Shape("3x24", R=3, C=24, quick=False),
                Shape("64x1001", R=64, C=1001, expect_reject=True)]   # requires C % 8 == 0

    def buffers(self, shape, dtype):
        r, c = shape["R"], shape["C"]
        return {"X": Buf((r, c), dtype, "in"), "Y": Buf((r, c), dtype, "out")}

    def calls(self, kernel, shape, b):
        return [(kernel, (b["X"], b["Y"]))]

    def fill(self, torch, name, tensor, gen):
        tensor.copy_(torch.randn(tensor.shape, generator=gen, device=tensor.device, dtype=torch.float32) * 2.0)

    def reference(self, torch, shape, b):
        return {"Y": torch.softmax(b["X"].float(), dim=1)}

    def peer(self, torch, shape, dtype, b):
        x = b["X"]
        return lambda: torch.softmax(x, dim=1)

    def work(self, shape, dtype):
        return 2 * shape["R"] * shape["C"] * SIZES[dtype]      # one read + one write of the matrix


# ---------------------------------------------------------------------------------------------------------
class _Gemm(Case):
    metric = "TFLOP/s"
    peer_name = "torch.matmul (cuBLAS)"
    b_transposed = False     # B given as [N, K] (C = A B^T) instead of [K, N]
    big = ()                 # extra large square sizes beyond 4096 (not in --quick)
    ragged = None            # (M, N, K) multiples the sample's requires needs when it masks its edges; None:
                             # whole tiles only (M % BM, N % BN, K % BK == 0)

    def tiles(self):
        return self.ct["BM"], self.ct["BN"], self.ct["BK"]

    def legal(self, m, n, k):
        """Whether the sample's requires accepts the shape (mirrors the .cake file's requires)."""
        multiples = self.ragged or self.tiles()
        return all(d % t == 0 for d, t in zip((m, n, k), multiples))

    def shapes(self):
        bm, bn, bk = self.tiles()
        shapes = [Shape("4096^3", M=4096, N=4096, K=4096, accept=True)]
        shapes += [Shape("%d^3" % s, M=s, N=s, K=s, quick=False) for s in self.big]
        shapes += [Shape("%dx%dx%d" % (bm, bn, bk), M=bm, N=bn, K=bk),
                   Shape("%dx%dx%d" % (3 * bm, 9 * bn, 25 * bk), M=3 * bm, N=9 * bn, K=25 * bk),
                   Shape("%dx%dx%d" % (17 * bm, 5 * bn, 33 * bk), M=17 * bm, N=5 * bn, K=33 * bk, quick=False)]
        shapes.append(Shape("4000^3", M=4000, N=4000, K=4000, expect_reject=not self.legal(4000, 4000, 4000)))
        if self.ragged:
            # ragged in every dimension the layout allows: M arbitrary, N and K partial tiles
            _, rn, rk = self.ragged
            shapes.append(Shape("1007x1000x1000", M=1007, N=1000, K=1000))
            shapes.append(Shape("%dx%dx%d" % (7, 3 * rn, 5 * rk), M=7, N=3 * rn, K=5 * rk))
            # a row of B / C that is not whole vectors: refused
            shapes.append(Shape("1000x%dx1000" % (1000 + rn // 2), M=1000, N=1000 + rn // 2, K=1000,
                                expect_reject=True))
        return shapes

    def buffers(self, shape, dtype):
        m, n, k = shape["M"], shape["N"], shape["K"]
        out = self.kernels[self.main_kernel["name"]]["params"][2]["dtype"]
        return {"A": Buf((m, k), dtype, "in"), "B": Buf((n, k) if self.b_transposed else (k, n), dtype, "in"),
                "C": Buf((m, n), out, "out")}

    def calls(self, kernel, shape, b):
        return [(kernel, (b["A"], b["B"], b["C"]))]

    def peer(self, torch, shape, dtype, b):
        a, bb = b["A"], b["B"]
        if self.b_transposed:
            return lambda: torch.matmul(a, bb.t())
        return lambda: torch.matmul(a, bb)

    def work(self, shape, dtype):
        return 2 * shape["M"] * shape["N"] * shape["K"]


class SimtGemm(_Gemm):
    """f32 C = A B on the CUDA cores; reference in float64; peer: cuBLAS SGEMM with TF32 off."""
    sample = "simt_gemm"
    ragged = (1, 4, 4)       # requires(N % 4 == 0, K % 4 == 0): f32x4 rows
    f32_tolerance = 1e-4
    peer_name = "torch.matmul f32 (cuBLAS, TF32 off)"

    def reference(self, torch, shape, b):
        return {"C": b["A"].double() @ b["B"].double()}


class AmpereGemm(_Gemm):
    """bf16 C = A B with f32 accumulation (mma.sync); reference in float32 (TF32 off); peer: cuBLAS bf16."""
    sample = "ampere_gemm"
    ragged = (1, 8, 8)       # requires(N % 8 == 0, K % 8 == 0): 16-byte cp.async / store vectors of bf16 rows
    big = (8192,)

    def reference(self, torch, shape, b):
        return {"C": b["A"].float() @ b["B"].float()}


class HopperGemm(_Gemm):
    """bf16 C = A B^T (B is [N, K]) with wgmma + TMA; peer: cuBLAS bf16 (A @ B.t())."""
    sample = "hopper_gemm"
    b_transposed = True
    big = (8192,)

    def reference(self, torch, shape, b):
        return {"C": b["A"].float() @ b["B"].float().t()}


class HopperGemmPersistent(HopperGemm):
    """The persistent, 2-CTA-cluster, TMA-multicast variant: any M, N (masked epilogue, TMA zero fill),
    K % 8 == 0, N even.  Shapes: the issue's targets, a ragged 4000^3 and a small ragged one."""
    sample = "hopper_gemm_persistent"

    def shapes(self):
        return [Shape("4096^3", M=4096, N=4096, K=4096, accept=True),
                Shape("8192^3", M=8192, N=8192, K=8192),
                Shape("8192x8192x1024", M=8192, N=8192, K=1024),
                Shape("128x8192x8192", M=128, N=8192, K=8192),
                Shape("8192x128x8192", M=8192, N=128, K=8192),
                Shape("4000^3", M=4000, N=4000, K=4000),
                Shape("200x264x72", M=200, N=264, K=72),
                Shape("4096x4096x4104", M=4096, N=4096, K=4104, quick=False)]


# ---------------------------------------------------------------------------------------------------------
class TmaCopy(Case):
    """Out = In (bf16 matrix) through TMA load + store; peer: a device-to-device copy of the same matrix."""
    sample = "tma_copy"
    metric = "GB/s"
    peer_name = "d2d copy"

    def shapes(self):
        bm, bn = self.ct["BM"], self.ct["BN"]
        legal = 4000 % bm == 0 and 4000 % bn == 0
        return [Shape("8192x8192", M=8192, N=8192, accept=True), Shape("%dx%d" % (bm, bn), M=bm, N=bn),
                Shape("%dx%d" % (3 * bm, 5 * bn), M=3 * bm, N=5 * bn),
                Shape("%dx%d" % (33 * bm, 17 * bn), M=33 * bm, N=17 * bn, quick=False),
                Shape("4000x4000", M=4000, N=4000, expect_reject=not legal)]

    def buffers(self, shape, dtype):
        m, n = shape["M"], shape["N"]
        return {"In": Buf((m, n), dtype, "in"), "Out": Buf((m, n), dtype, "out")}

    def calls(self, kernel, shape, b):
        return [(kernel, (b["In"], b["Out"]))]

    def reference(self, torch, shape, b):
        return {"Out": b["In"].double()}

    def peer(self, torch, shape, dtype, b):
        src = b["In"]
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)

    def work(self, shape, dtype):
        return 2 * shape["M"] * shape["N"] * SIZES[dtype]


CASES = [VectorAdd, BlockReduceSum, RowSoftmax, SimtGemm, AmpereGemm, HopperGemm, HopperGemmPersistent, TmaCopy]
CASES_BY_SAMPLE = {c.sample: c for c in CASES}
