#!/usr/bin/env python3
"""Tests of the `cake` Python package (runtime/python/cake) without a GPU.  Plain asserts, no pytest:
    python3 tests/python/test_runtime.py
Part 1 needs nothing.  Part 2 needs libcake_runtime.so ($CAKE_RUNTIME_LIB, else found in build*/lib; when
CAKE_RUNTIME_LIB is set a missing library is a failure, otherwise part 2 is skipped).  Part 3 launches
through the fake CUDA driver ($CAKE_FAKE_CUDA_LIB, built as libcake_fake_cuda.so) and checks what reached it.
Part 4 compiles a small kernel with cakec ($CAKE_CAKEC; skipped without it or without ptxas) and checks that
the manifest cakec writes loads, plans and launches, and that its ABI matches the PTX entry's parameters.
ctest runs this file with all three variables set (runtime/CMakeLists.txt)."""

import ctypes
import os
import re
import subprocess
import sys
import tempfile
import traceback
import types

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import cake  # noqa: E402
from cake import _args, _dtypes  # noqa: E402

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

def test_library_and_plans():
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
    del module


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


def test_cakec_end_to_end(cakec, fake_path):
    import json
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "axpy.cake")
        with open(source, "w") as handle:
            handle.write(AXPY)
        cubin = os.path.join(folder, "axpy.cubin")
        result = subprocess.run([cakec, source, "-o", cubin], capture_output=True, text=True)
        if result.returncode == 3:
            print("SKIP cakec end-to-end: no ptxas (%s)" % result.stderr.strip())
            return
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


def main():
    passed = failed = 0

    def run(test, *args):
        nonlocal passed, failed
        try:
            test(*args)
            passed += 1
            print("PASS", test.__name__)
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print("FAIL", test.__name__)
            traceback.print_exc()

    run(test_dtypes)
    run(test_argument_conversion)
    run(test_error_classes)
    library_required = bool(os.environ.get("CAKE_RUNTIME_LIB"))
    try:
        cake.library_path()
        have_library = True
    except OSError as error:
        have_library = False
        if library_required:
            failed += 1
            print("FAIL loading the library:", error)
        else:
            print("SKIP library tests:", error)
    if have_library:
        run(test_library_and_plans)
        fake = os.environ.get("CAKE_FAKE_CUDA_LIB")
        if fake:
            run(test_launch_through_fake_driver, fake)
        else:
            print("SKIP launch tests: CAKE_FAKE_CUDA_LIB is not set")
        cakec = os.environ.get("CAKE_CAKEC")
        if cakec and not os.path.isfile(cakec):
            print("SKIP cakec end-to-end test: %s is not built" % cakec)
        elif cakec:
            run(test_cakec_end_to_end, cakec, fake)
        else:
            print("SKIP cakec end-to-end test: CAKE_CAKEC is not set")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
