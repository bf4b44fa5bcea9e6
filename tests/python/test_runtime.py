"""Tests of the `cake` Python package (runtime/python/cake) without a GPU, under pytest:
    utils/pytest.sh VENV tests/python        (ctest does this; VENV gets pytest installed)
Part 1 needs nothing.  Part 2 needs libcake_runtime.so (the `lib` fixture of conftest.py).  Part 3 launches
through the fake CUDA driver ($CAKE_FAKE_CUDA_LIB, built as libcake_fake_cuda.so) and checks what reached it.
Part 4 compiles a small kernel with cakec ($CAKE_CAKEC; skipped without it or without ptxas) and checks that
the manifest cakec writes loads, plans and launches, and that its ABI matches the PTX entry's parameters.
Part 5 is issue 12's hostile input: integers that would wrap, lenient conversions, hostile objects, paths
and manifests."""

import ctypes
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import types

import pytest

import cakeir as cake
from cakeir import _args, _dtypes

GEMM = r"""{
  "format": "cake-manifest", "version": 1, "arch": "sm_90a", "cubin": "gemm.cubin",
  "kernels": [{
    "name": "gemm", "entry": "gemm__9",
    "ct_params": {"BM": 128, "BN": 256, "BK": 64},
    "params": [
      {"name": "A", "kind": "tensor", "dtype": "bf16", "dims": ["M", "K"],
       "tma": {"box": ["BM", "BK"], "swizzle": "128B"}},
      {"name": "B", "kind": "tensor", "dtype": "bf16", "dims": ["N", "K"],
       "tma": {"box": ["BN", "BK"], "swizzle": "128B"}},
      {"name": "C", "kind": "tensor", "dtype": "f32", "dims": ["M", "N"]},
      {"name": "alpha", "kind": "scalar", "dtype": "f32"}
    ],
    "shape_vars": [{"name": "M", "from": {"param": 0, "dim": 0}}, {"name": "K", "from": {"param": 0, "dim": 1}},
                   {"name": "N", "from": {"param": 1, "dim": 0}}],
    "launch": {"grid": ["cdiv(M, BM)", "cdiv(N, BN)"], "block": [384], "cluster": [2],
               "dynamic_smem": "(BM + BN) * BK * 2 * 4"},
    "requires": [{"expr": "K % BK == 0", "loc": "gemm.cake:3:12"}],
    "abi": [{"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1}, {"kind": "ptr", "param": 2},
            {"kind": "shape", "var": "M"}, {"kind": "shape", "var": "K"}, {"kind": "shape", "var": "N"},
            {"kind": "scalar", "param": 3}, {"kind": "tensormap", "param": 0}, {"kind": "tensormap", "param": 1}]
  }, {
    "name": "fill", "entry": "fill__3",
    "params": [{"name": "out", "kind": "tensor", "dtype": "i32", "dims": ["n"]},
               {"name": "value", "kind": "scalar", "dtype": "i32"}],
    "shape_vars": [{"name": "n", "from": {"param": 0, "dim": 0}}],
    "launch": {"grid": ["min(cdiv(n, 256), num_sms)"], "block": [256]},
    "abi": [{"kind": "ptr", "param": 0}, {"kind": "shape", "var": "n"}, {"kind": "scalar", "param": 1}]
  }]
}"""

A, B, C = 0x7F0000000000, 0x7F0000100000, 0x7F0000200000


class FakeCudaArray:
    """Anything with __cuda_array_interface__ (like a CuPy array or Numba device array)."""

    def __init__(self, ptr, shape, typestr, strides=None):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (ptr, False),
                                         "strides": strides, "version": 3}


def expect_error(cls, fragment, function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except cls as error:
        assert fragment in str(error), "%r not in %r" % (fragment, str(error))
        return error
    raise AssertionError("expected %s(%r)" % (cls.__name__, fragment))


# ---------------------------------------------------------------- part 1: pure Python

def test_dtypes():
    assert _dtypes.from_name("bf16") == _dtypes.BF16 and _dtypes.name(_dtypes.F32) == "f32"
    assert _dtypes.typestr_to_dtype("<f2") == _dtypes.F16
    assert _dtypes.typestr_to_dtype("<i4") == _dtypes.I32
    assert _dtypes.typestr_to_dtype("|b1") == _dtypes.PRED
    assert _dtypes.typestr_to_dtype("<V2", _dtypes.BF16) == _dtypes.BF16  # bf16 has no typestr of its own
    assert _dtypes.typestr_to_dtype("|u1", _dtypes.F8E4M3) == _dtypes.F8E4M3
    expect_error(ValueError, "has no CAKE dtype matching f32", _dtypes.typestr_to_dtype, "<V2", _dtypes.F32)
    expect_error(ValueError, "big-endian", _dtypes.typestr_to_dtype, ">f4")
    expect_error(ValueError, "invalid", _dtypes.typestr_to_dtype, "f4")
    assert _dtypes.torch_dtype_to_dtype("torch.bfloat16") == _dtypes.BF16
    assert _dtypes.torch_dtype_to_dtype("torch.float8_e4m3fn") == _dtypes.F8E4M3
    expect_error(ValueError, "complex64", _dtypes.torch_dtype_to_dtype, "torch.complex64")


def test_argument_conversion():
    keep = []
    arg = _args.tensor_arg(FakeCudaArray(A, (4, 8), "<f4", strides=(64, 4)), "x", _dtypes.F32, keep)
    assert arg.kind == 1 and arg.dtype == _dtypes.F32 and arg.data == A and arg.rank == 2
    assert [arg.shape[i] for i in range(2)] == [4, 8] and [arg.strides[i] for i in range(2)] == [16, 1]
    arg = _args.tensor_arg(FakeCudaArray(A, (4,), "<f4"), "x", _dtypes.F32, keep)
    assert not arg.strides  # None: contiguous
    expect_error(cake.CakeArgumentError, "not a multiple of the element size",
                 _args.tensor_arg, FakeCudaArray(A, (4, 8), "<f4", strides=(6, 4)), "x", _dtypes.F32, keep)
    arg = _args.tensor_arg(0x1000, "x", _dtypes.BF16, keep)
    assert arg.rank == 0 and not arg.shape and arg.dtype == _dtypes.BF16
    arg = _args.tensor_arg(cake.DevicePtr(0x2000, shape=(3, 5), dtype="f16"), "x", _dtypes.BF16, keep)
    assert arg.dtype == _dtypes.F16 and arg.rank == 2
    expect_error(cake.CakeArgumentError, "expected a CUDA tensor", _args.tensor_arg, "nope", "x", _dtypes.F32, keep)
    expect_error(cake.CakeArgumentError, "negative device address", _args.tensor_arg, -1, "x", _dtypes.F32, keep)
    expect_error(cake.CakeArgumentError, "unknown dtype", cake.DevicePtr, 1, dtype="f99")
    s = _args.scalar_arg(True, "p")
    assert s.dtype == _dtypes.PRED and s.i == 1
    s = _args.scalar_arg(7, "n")
    assert s.dtype == _dtypes.I64 and s.i == 7
    s = _args.scalar_arg(2.5, "alpha")
    assert s.dtype == _dtypes.F64 and s.f == 2.5
    expect_error(cake.CakeArgumentError, "does not fit in 64 bits", _args.scalar_arg, 1 << 70, "n")
    expect_error(cake.CakeArgumentError, "expected a number", _args.scalar_arg, "1", "n")
    assert _args.stream_handle(None, [1, 2]) is None
    assert _args.stream_handle(42, []) == 42
    assert _args.stream_handle(types.SimpleNamespace(cuda_stream=7), []) == 7
    assert _args.stream_handle(types.SimpleNamespace(ptr=9), []) == 9


def test_error_classes():
    error = cake._errors.error_for(6, "requirement failed")
    assert isinstance(error, cake.CakeRequirementError) and isinstance(error, cake.CakeArgumentError)
    assert isinstance(error, ValueError) and error.status == 6
    assert str(cake._errors.error_for(4, "no kernel 'x'")) == "no kernel 'x'"
    assert isinstance(cake._errors.error_for(99, "?"), cake.CakeError)


# ---------------------------------------------------------------- part 2: the library, no launch

def test_library_and_plans(lib):
    assert cake.runtime_version() == "0.1.0"
    assert cake.eval_expression("cdiv(M, BM) * 2", M=1000, BM=128) == 16
    expect_error(cake.CakeExpressionError, "division by zero", cake.eval_expression, "M / (BM - BM)", M=1, BM=2)
    module = cake.load_data(GEMM)
    assert module.arch == "sm_90a" and set(module.kernels) == {"gemm", "fill"}
    gemm = module.gemm
    assert gemm is module["gemm"] and gemm.entry == "gemm__9"
    assert gemm.signature() == "gemm(A: bf16[2], B: bf16[2], C: f32[2], alpha: f32)"
    assert gemm.shape_vars == ["M", "K", "N"]
    expect_error(cake.CakeNotFoundError, "has no kernel 'gemv'", module.__getitem__, "gemv")
    expect_error(cake.CakeArgumentError, "has 2 kernels", module)

    a = FakeCudaArray(A, (256, 512), "<V2")  # how bf16 arrives through __cuda_array_interface__
    b = FakeCudaArray(B, (512, 512), "<V2")
    c = FakeCudaArray(C, (256, 512), "<f4")
    plan = gemm.plan(a, b, c, 1.0)
    assert plan.grid == (2, 2, 1) and plan.block == (384, 1, 1) and plan.cluster == (2, 1, 1)
    assert plan.dynamic_smem_bytes == 196608 and plan.num_abi_params == 9 and plan.num_tensor_maps == 2
    assert gemm.plan(a, b, C=c, alpha=1.0).grid == (2, 2, 1)  # by name
    # Raw device addresses take their shapes from shape variables passed by name.
    assert gemm.plan(A, B, C, 2, M=256, N=512, K=512).grid == (2, 2, 1)

    expect_error(cake.CakeArgumentError, "argument 2 (C): dim 0 is 128 but the kernel expects `M` = 256",
                 gemm.plan, a, b, FakeCudaArray(C, (128, 512), "<f4"), 1.0)
    expect_error(cake.CakeArgumentError, "argument 2 (C): expected a f32 tensor, got f16",
                 gemm.plan, a, b, FakeCudaArray(C, (256, 512), "<f2"), 1.0)
    expect_error(cake.CakeArgumentError, "expected a tensor of rank 2, got rank 1",
                 gemm.plan, a, b, FakeCudaArray(C, (256,), "<f4"), 1.0)
    error = expect_error(cake.CakeRequirementError, "requirement `K % BK == 0` (gemm.cake:3:12) does not hold: "
                         "K = 500, BK = 64", gemm.plan, FakeCudaArray(A, (256, 500), "<V2"),
                         FakeCudaArray(B, (512, 500), "<V2"), c, 1.0)
    assert error.status == 6
    expect_error(cake.CakeArgumentError, "missing argument alpha", gemm.plan, a, b, c)
    expect_error(cake.CakeArgumentError, "argument alpha given twice", gemm.plan, a, b, c, 1.0, alpha=2.0)
    expect_error(cake.CakeArgumentError, "no parameter or shape variable 'Q'", gemm.plan, a, b, c, 1.0, Q=1)
    expect_error(cake.CakeArgumentError, "takes 4 arguments", gemm.plan, a, b, c, 1.0, 2.0)
    expect_error(cake.CakeArgumentError, "shape variable M is not known", gemm.plan, A, B, C, 1.0)
    expect_error(cake.CakeLaunchConfigError, "the launch uses num_sms but no SM count is known",
                 module.fill.plan, FakeCudaArray(C, (100000,), "<i4"), 1)
    assert module.fill.plan(FakeCudaArray(C, (100000,), "<i4"), 1, num_sms=100).grid == (100, 1, 1)

    expect_error(cake.CakeManifestError, "unknown dtype 'f33'", cake.load_data, GEMM.replace('"f32"', '"f33"', 1))
    expect_error(cake.CakeIOError, "cannot read launch manifest /nonexistent/k.cubin.json", cake.load,
                 "/nonexistent/k.cubin")


# ---------------------------------------------------------------- part 3: launches through the fake driver

def test_launch_through_fake_driver(fake_path):
    fake_lib = ctypes.CDLL(fake_path)  # the same handle the runtime will dlopen
    fake_lib.cake_fake_cuda_reset()
    get_state = fake_lib.cake_fake_cuda_state_get

    class Recorded(ctypes.Structure):  # the prefix of cake_fake_cuda_state (FakeCuda.h) that the test reads
        _fields_ = [("ints", ctypes.c_int * 10), ("name", ctypes.c_char * 256), ("set_attribute_calls", ctypes.c_int),
                    ("last_attribute", ctypes.c_int), ("last_attribute_value", ctypes.c_int),
                    ("launches", ctypes.c_int), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                    ("cluster", ctypes.c_uint * 3), ("shared_mem_bytes", ctypes.c_uint), ("stream", ctypes.c_void_p)]

    get_state.restype = ctypes.POINTER(Recorded)
    os.environ["CAKE_LIBCUDA"] = fake_path
    cake.driver_check()
    module = cake.load_data(GEMM, b"\x7fELF")
    a = FakeCudaArray(A, (256, 512), "<V2")
    b = FakeCudaArray(B, (512, 512), "<V2")
    c = FakeCudaArray(C, (256, 512), "<f4")
    module.gemm(a, b, c, 0.5, stream=0x1234)
    rec = get_state().contents
    assert rec.launches == 1, rec.launches
    assert rec.name == b"gemm__9"
    assert list(rec.grid) == [2, 2, 1] and list(rec.block) == [384, 1, 1] and list(rec.cluster) == [2, 1, 1]
    assert rec.shared_mem_bytes == 196608 and rec.stream == 0x1234
    assert rec.last_attribute == 8 and rec.last_attribute_value == 196608  # MAX_DYNAMIC_SHARED_SIZE_BYTES
    # num_sms comes from the (fake) device: 132 SMs.
    module.fill(FakeCudaArray(C, (10 ** 6,), "<i4"), 7)
    assert get_state().contents.grid[0] == 132
    # A fake torch: tensors are read through .dtype / .shape / .stride() / .data_ptr(), and the launch uses
    # torch's current stream.
    torch = types.ModuleType("torch")

    class Tensor:
        def __init__(self, ptr, shape, dtype):
            self._ptr, self.shape, self.dtype = ptr, shape, dtype
            self.is_cuda, self.device = True, "cuda:0"

        def stride(self):
            return tuple(int(x) for x in [self.shape[1], 1])

        def data_ptr(self):
            return self._ptr

    entered = []

    class DeviceGuard:
        def __init__(self, device):
            self.device = device

        def __enter__(self):
            entered.append(self.device)

        def __exit__(self, *exc):
            return False

    torch.Tensor = Tensor
    torch.cuda = types.SimpleNamespace(current_stream=lambda device: types.SimpleNamespace(cuda_stream=0x5678),
                                       device=DeviceGuard)
    real_torch = sys.modules.get("torch")
    sys.modules["torch"] = torch
    try:
        module.gemm(Tensor(A, (256, 512), "torch.bfloat16"), Tensor(B, (512, 512), "torch.bfloat16"),
                    Tensor(C, (256, 512), "torch.float32"), alpha=1.0)
        rec = get_state().contents
        assert rec.launches == 3 and rec.stream == 0x5678
        assert entered == ["cuda:0"]  # launched under torch's device guard for the tensors' device
        cpu = Tensor(C, (256, 512), "torch.float32")
        cpu.is_cuda, cpu.device = False, "cpu"
        expect_error(cake.CakeArgumentError, "argument 2 (C): tensor is on cpu", module.gemm,
                     Tensor(A, (256, 512), "torch.bfloat16"), Tensor(B, (512, 512), "torch.bfloat16"), cpu, 1.0)
    finally:
        del sys.modules["torch"]
        if real_torch is not None:
            sys.modules["torch"] = real_torch
    del module


def test_occupancy_through_fake_driver(fake_cuda):
    """Kernel.occupancy: the driver's blocks per SM for the launch these arguments make (block size and dynamic
    shared memory from the manifest), after the argument checks and shared-memory opt-in; nothing launched."""
    module = cake.load_data(GEMM, b"\x7fELF")
    args = (FakeCudaArray(A, (256, 512), "<V2"), FakeCudaArray(B, (512, 512), "<V2"),
            FakeCudaArray(C, (256, 512), "<f4"), 0.5)
    assert module.gemm.occupancy(*args) == 1               # 196608 bytes of a 228 KiB SM
    assert fake_cuda.occupancy_block_size == 384 and fake_cuda.occupancy_dynamic_smem == 196608
    fake_cuda.max_smem_per_sm = 3 * (196608 + 1024)
    assert module.gemm.occupancy(*args) == 3
    assert fake_cuda.occupancy_calls == 2 and fake_cuda.launches == 0
    expect_error(cake.CakeArgumentError, "argument 2 (C): dim 1 is 512", module.gemm.occupancy, args[0],
                 FakeCudaArray(B, (256, 512), "<V2"), args[2], 0.5)


# ---------------------------------------------------------------- part 4: cakec -> manifest -> runtime

AXPY = """target sm_80;
kernel axpy<T = 128>(X: f32[N], Y: f32[N], a: f32, n4: i32)
  requires(N % 4 == 0, n4 == N / 4)
  grid(cdiv(N, T)) threads(T)
{
  let i = i32(block.x) * T + i32(tid.x);
  if i < N {
    Y[i] = a * X[i] + Y[i];
  }
}
"""

# PTX parameter type of each ABI slot kind (docs/manifest.md, "Kernel parameter ABI").
SCALAR_PTX = {"pred": "u8", "i32": "s32", "u32": "u32", "i64": "s64", "f32": "f32", "f16": "b16", "bf16": "b16"}


def test_cakec_end_to_end(cakec):
    fake_path = os.environ.get("CAKE_FAKE_CUDA_LIB")
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "axpy.cake")
        with open(source, "w") as handle:
            handle.write(AXPY)
        cubin = os.path.join(folder, "axpy.cubin")
        result = subprocess.run([cakec, source, "-o", cubin], capture_output=True, text=True)
        if result.returncode == 3:
            pytest.skip("cakec end-to-end: no ptxas (%s)" % result.stderr.strip())
        assert result.returncode == 0, result.stderr
        ptx = os.path.join(folder, "axpy.ptx")
        result = subprocess.run([cakec, source, "-o", ptx], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        with open(cubin + ".json") as handle:
            manifest = json.load(handle)
        with open(ptx) as handle:
            ptx_text = handle.read()
        # The ABI the manifest promises is the parameter list of the PTX entry.
        kernel = manifest["kernels"][0]
        entry = re.search(r"\.entry\s+%s\s*\(([^)]*)\)" % re.escape(kernel["entry"]), ptx_text)
        assert entry, "no .entry %s in the PTX" % kernel["entry"]
        ptx_types = re.findall(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)", entry.group(1))
        expected = []
        for slot in kernel["abi"]:
            if slot["kind"] == "ptr":
                expected.append("u64")
            elif slot["kind"] == "shape":
                expected.append("s32")
            elif slot["kind"] == "scalar":
                expected.append(SCALAR_PTX[kernel["params"][slot["param"]]["dtype"]])
            elif slot["kind"] == "tensormap":
                expected.append("b8")
        assert ptx_types == expected, (ptx_types, expected)

        module = cake.load(cubin)
        axpy = module.axpy
        assert axpy.signature() == "axpy(X: f32[1], Y: f32[1], a: f32, n4: i32)"
        x = FakeCudaArray(A, (1000,), "<f4")
        y = FakeCudaArray(B, (1000,), "<f4")
        assert axpy.plan(x, y, 2.0, 250).grid == (8, 1, 1)  # cdiv(1000, 128)
        expect_error(cake.CakeRequirementError, "requirement `n4 == N / 4` (%s:3:24) does not hold: n4 = 7, N = 1000"
                     % kernel["loc"].rsplit(":", 2)[0], axpy.plan, x, y, 2.0, 7)
        expect_error(cake.CakeArgumentError, "argument 1 (Y): dim 0 is 996 but the kernel expects `N` = 1000",
                     axpy.plan, x, FakeCudaArray(B, (996,), "<f4"), 2.0, 250)
        if fake_path:
            os.environ["CAKE_LIBCUDA"] = fake_path
            fake = ctypes.CDLL(fake_path)
            fake.cake_fake_cuda_reset()
            fake.cake_fake_cuda_state_get.restype = ctypes.POINTER(ctypes.c_int * 8)
            fake_state = fake.cake_fake_cuda_state_get().contents
            # The fake device is cc 9.0, which cannot run sm_80 code: the runtime says so before loading.
            expect_error(cake.CakeCudaError, "was compiled for sm_80 but the device has compute capability 9.0",
                         module, x, y, 2.0, 250)
            fake_state[1], fake_state[2] = 8, 6  # cc_major, cc_minor (FakeCuda.h field order)
            module(x, y, 2.0, 250)  # loads the real cubin bytes into the fake driver and launches
            assert fake_state[7] == 1, "module_loads = %d" % fake_state[7]


# ---------------------------------------------------------------- part 5: issue 12, hostile input

FLAGS = json.dumps({
    "format": "cake-manifest", "version": 1, "arch": "sm_90", "cubin": "flags.cubin", "source": "na\u00efve.cake",
    "kernels": [{
        "name": "flags", "loc": "na\u00efve.cake:2:8",
        "params": [{"name": "src", "kind": "tensor", "dtype": "f32", "dims": ["n"], "access": "read"},
                   {"name": "dst", "kind": "tensor", "dtype": "f32", "dims": ["n"], "align": 16},
                   {"name": "on", "kind": "scalar", "dtype": "pred"}],
        "shape_vars": [{"name": "n", "from": {"param": 0, "dim": 0}}],
        "launch": {"grid": ["min(cdiv(n, 128), num_sms)"], "block": [128]},
        "requires": [{"expr": "n % 4 == 0", "loc": "na\u00efve.cake:3:12"}],
        "abi": [{"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1}, {"kind": "shape", "var": "n"},
                {"kind": "scalar", "param": 2}]}]}, ensure_ascii=False)


def flags_kernel():
    return cake.load_data(FLAGS).flags


def test_integers_that_would_wrap_are_refused(lib):
    """Item 22: ctypes wraps integers modulo 2^64; every integer is range-checked before it gets there."""
    kernel = flags_kernel()
    src, dst = FakeCudaArray(A, (4096,), "<f4"), FakeCudaArray(B, (4096,), "<f4")
    assert kernel.plan(src, dst, True, num_sms=100).grid == (32, 1, 1)
    huge = (1 << 64) + 4096
    expect_error(cake.CakeArgumentError, "is outside", kernel.plan, FakeCudaArray(A, (huge,), "<f4"), dst, True,
                 num_sms=100)
    expect_error(cake.CakeArgumentError, "is outside", kernel.plan, FakeCudaArray((1 << 64) + A, (4096,), "<f4"),
                 dst, True, num_sms=100)
    expect_error(cake.CakeArgumentError, "is outside", kernel.plan, (1 << 64) + A, B, True, n=4096, num_sms=100)
    expect_error(cake.CakeArgumentError, "non-negative integer address", cake.DevicePtr, -1)
    expect_error(cake.CakeArgumentError, "is outside", cake.DevicePtr, 1 << 64)
    expect_error(cake.CakeArgumentError, "is outside", cake.DevicePtr, A, shape=(huge,))
    expect_error(cake.CakeArgumentError, "shape variable n: %d is outside" % huge, kernel.plan, A, B, True, n=huge,
                 num_sms=100)
    expect_error(cake.CakeArgumentError, "num_sms: %d is outside" % huge, kernel.plan, src, dst, True, num_sms=huge)
    expect_error(cake.CakeArgumentError, "eval_expression: M", cake.eval_expression, "M + 1", M=huge)
    for stream in (-1, 1 << 64, huge):
        expect_error(cake.CakeArgumentError, "stream: %d is outside" % stream, _args.stream_handle, stream, [])
    expect_error(cake.CakeArgumentError, "stream.cuda_stream: -1 is outside", _args.stream_handle,
                 types.SimpleNamespace(cuda_stream=-1), [])
    assert _args.stream_handle((1 << 64) - 1, []) == (1 << 64) - 1


def test_lenient_conversions_are_refused(lib):
    """Item 23: no float or string dims, no fractional or negative num_sms, pred only 0/1, strides must match
    the shape, and a read-only array is not passed for a tensor the kernel may write."""
    kernel = flags_kernel()
    dst = FakeCudaArray(B, (4096,), "<f4")
    for dim in (4096.9, 4096.0, "4096", True):
        expect_error(cake.CakeArgumentError, "expected an integer", kernel.plan, FakeCudaArray(A, (dim,), "<f4"),
                     dst, True, num_sms=100)
    expect_error(cake.CakeArgumentError, "expected an integer", cake.DevicePtr, A, shape=(4096.5,))
    src = FakeCudaArray(A, (4096,), "<f4")
    for num_sms in (1.5, -3, 0, "8", True):
        expect_error(cake.CakeArgumentError, "num_sms", kernel.plan, src, dst, True, num_sms=num_sms)
    for pred in (2, 256, -1):
        expect_error(cake.CakeArgumentError, "argument 2 (on): value %d is not a pred" % pred, kernel.plan, src, dst,
                     pred, num_sms=100)
    assert kernel.plan(src, dst, 1, num_sms=100).grid == (32, 1, 1)
    assert kernel.plan(src, dst, False, num_sms=100).grid == (32, 1, 1)
    expect_error(cake.CakeArgumentError, "2 strides for a shape of 1 dims", kernel.plan,
                 FakeCudaArray(A, (4096,), "<f4", strides=(4, 4)), dst, True, num_sms=100)
    expect_error(cake.CakeArgumentError, "2 strides for a shape of 1 dims", cake.DevicePtr, A, shape=(4,), strides=(1, 1))
    read_only_dst = FakeCudaArray(B, (4096,), "<f4")
    read_only_dst.__cuda_array_interface__["data"] = (B, True)
    expect_error(cake.CakeArgumentError, "argument 1 (dst): the array is read-only", kernel.plan, src, read_only_dst,
                 True, num_sms=100)
    read_only_src = FakeCudaArray(A, (4096,), "<f4")
    read_only_src.__cuda_array_interface__["data"] = (A, True)
    assert kernel.plan(read_only_src, dst, True, num_sms=100).grid == (32, 1, 1)  # "access": "read"
    read_only_src.__cuda_array_interface__["data"] = (A, "yes")
    expect_error(cake.CakeArgumentError, "read-only flag) must be a bool", kernel.plan, read_only_src, dst, True,
                 num_sms=100)


class Hostile:
    """An array-like object whose interface misbehaves in a chosen way."""

    def __init__(self, how):
        self.how = how

    @property
    def __cuda_array_interface__(self):
        if self.how == "raise":
            raise RuntimeError("boom")
        if self.how == "endless":
            def forever():
                while True:
                    yield 1
            return {"shape": forever(), "typestr": "<f4", "data": (A, False), "version": 3}
        if self.how == "long":
            return {"shape": (1,) * 10 ** 6, "typestr": "<f4", "data": (A, False), "version": 3}
        if self.how == "not-a-dict":
            return [1, 2, 3]
        raise AssertionError(self.how)


def test_hostile_array_objects_fail_cleanly(lib):
    """Item 24: an exception from a hostile object is a CakeArgumentError, an endless iterator does not hang."""
    kernel = flags_kernel()
    dst = FakeCudaArray(B, (4096,), "<f4")
    error = expect_error(cake.CakeArgumentError, "argument 0 (src): reading the argument raised RuntimeError: boom",
                         kernel.plan, Hostile("raise"), dst, True, num_sms=100)
    assert isinstance(error.__cause__, RuntimeError)
    expect_error(cake.CakeArgumentError, "shape must be a tuple or list, got generator", kernel.plan,
                 Hostile("endless"), dst, True, num_sms=100)
    expect_error(cake.CakeArgumentError, "has 1000000 entries", kernel.plan, Hostile("long"), dst, True, num_sms=100)
    expect_error(cake.CakeArgumentError, "must be a dict", kernel.plan, Hostile("not-a-dict"), dst, True, num_sms=100)

    class BadStream:
        @property
        def cuda_stream(self):
            raise ValueError("closed")

    expect_error(cake.CakeArgumentError, "stream: reading .cuda_stream raised ValueError: closed", _args.stream_handle,
                 BadStream(), [])

    class BadFloat(float):
        def __float__(self):
            raise OverflowError("no")

    expect_error(cake.CakeArgumentError, "raised OverflowError: no", _args.scalar_arg, BadFloat(1.0), "x")


def write_module(folder, manifest, cubin=b"\x7fELF-not-really", name="k.cubin"):
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(cubin)
    with open(os.path.join(folder, name + ".json"), "w", encoding="utf-8") as handle:
        handle.write(manifest)
    return os.path.join(folder, name)


def test_hostile_paths_and_manifests(lib):
    """Item 24 (paths, "cubin"), item 17 (cubin_sha256), item 20 (UTF-8)."""
    manifest = json.loads(GEMM)
    manifest["cubin"] = "k.cubin"
    with tempfile.TemporaryDirectory() as folder:
        path = write_module(folder, json.dumps(manifest))
        assert set(cake.load(path).kernels) == {"gemm", "fill"}
        expect_error(cake.CakeArgumentError, "contains a NUL byte", cake.load, path + "\0.evil")
        for bad in ("../../../../etc/passwd", "/dev/zero", ".."):
            manifest["cubin"] = bad
            write_module(folder, json.dumps(manifest), name="bad.cubin")
            expect_error(cake.CakeManifestError, "is not a file name in the manifest's folder", cake.load,
                         os.path.join(folder, "bad.cubin.json"))
        manifest["cubin"] = "sub"
        os.mkdir(os.path.join(folder, "sub"))
        write_module(folder, json.dumps(manifest), name="dir.cubin")
        expect_error(cake.CakeIOError, "it is a directory", cake.load, os.path.join(folder, "dir.cubin.json"))
        os.symlink("/dev/zero", os.path.join(folder, "zero.cubin"))
        with open(os.path.join(folder, "zero.cubin.json"), "w") as handle:
            handle.write(GEMM)
        expect_error(cake.CakeIOError, "it is not a regular file", cake.load, os.path.join(folder, "zero.cubin"))

        cubin = b"\x7fELF-not-really"
        manifest["cubin"] = "k.cubin"
        manifest["cubin_sha256"] = hashlib.sha256(cubin).hexdigest()
        manifest["ptxas"] = {"path": "/usr/local/cuda/bin/ptxas", "version": "12.4"}
        path = write_module(folder, json.dumps(manifest), cubin)
        assert cake.load(path).arch == "sm_90a"
        write_module(folder, json.dumps(manifest), cubin + b"other compilation")
        expect_error(cake.CakeIOError, "does not match its manifest", cake.load, path)
        expect_error(cake.CakeIOError, "does not match its manifest", cake.load_data, json.dumps(manifest), b"x")

    # Non-ASCII names come through; invalid UTF-8 makes the manifest invalid instead of passing raw bytes on.
    kernel = flags_kernel()
    expect_error(cake.CakeRequirementError, "(na\u00efve.cake:3:12) does not hold", kernel.plan,
                 FakeCudaArray(A, (4094,), "<f4"), FakeCudaArray(B, (4094,), "<f4"), True, num_sms=100)
    invalid = FLAGS.encode("utf-8").replace("na\u00efve".encode("utf-8"), b"na\xefve")
    expect_error(cake.CakeManifestError, "UTF-8", cake.load_data, invalid)


def test_misaligned_pointers_are_refused(lib, fake_path):
    """Item 12, runtime half: a pointer less aligned than the manifest's `align` is refused before launch."""
    os.environ["CAKE_LIBCUDA"] = fake_path
    fake = ctypes.CDLL(fake_path)
    fake.cake_fake_cuda_reset()
    fake.cake_fake_cuda_state_get.restype = ctypes.POINTER(ctypes.c_int * 80)
    module = cake.load_data(FLAGS, b"\x7fELF")
    src = FakeCudaArray(A, (4096,), "<f4")
    expect_error(cake.CakeArgumentError, "argument 1 (dst): device address 0x%x is not aligned to 16 bytes" % (B + 4),
                 module.flags, src, FakeCudaArray(B + 4, (4096,), "<f4"), True)
    expect_error(cake.CakeArgumentError, "not aligned to 16 bytes", module.flags, src, B + 8, True, n=4096)
    assert fake.cake_fake_cuda_state_get().contents[77] == 0, "nothing was launched"  # launches: 10 ints, 256 chars, 3 ints
    module.flags(src, FakeCudaArray(B + 16, (4096,), "<f4"), True)
    assert fake.cake_fake_cuda_state_get().contents[77] == 1
