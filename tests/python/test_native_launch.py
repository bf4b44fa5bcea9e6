"""The native prepared-launch path (cakeir._prepared_call, runtime/python_extension/prepared_call.c) through the
fake CUDA driver and the stand-in torch of test_prepared.py: the abi3 module loads; every call gives the same
launch (grid, block, cluster, shared memory, stream, every kernel parameter's bytes, TMA descriptors, device
guards) or the same error as the Python path; calls that do not match a kept signature (another shape or
dtype, a non-contiguous tensor, another device, a CPU tensor, keyword arguments, a stream object) fall back;
CAKE_NO_NATIVE=1 turns the native path off."""

import importlib.machinery
import os
import subprocess
import sys
import types

import pytest

import cakeir
from cakeir import _native
from test_prepared import FakeTorch
from test_runtime import A, B, C, GEMM

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def torch():
    saved = sys.modules.get("torch")
    fake = sys.modules["torch"] = FakeTorch()
    yield fake
    del sys.modules["torch"]
    if saved is not None:
        sys.modules["torch"] = saved


@pytest.fixture
def native(lib):
    """The extension module; skipped when it was not built beside the runtime library (no Python headers)."""
    path = os.path.join(os.path.dirname(lib.cake_library_path), _native.MODULE_FILE)
    if not os.path.isfile(path) and not os.environ.get("CAKE_PREPARED_CALL_MODULE"):
        pytest.skip("%s is not built" % path)
    if os.environ.get("CAKE_NO_NATIVE", "") not in ("", "0"):
        pytest.skip("CAKE_NO_NATIVE is set")
    module = _native.module(lib.cake_library_path)
    assert module is not None, _native.reason()
    return module


def test_the_abi3_module_loads(native):
    assert ".abi3.so" in importlib.machinery.EXTENSION_SUFFIXES
    assert native.__file__.endswith(".abi3.so") and native.__name__ == "cakeir._prepared_call"
    assert native.RUNTIME_ABI_VERSION == cakeir._lib.ABI_VERSION
    assert cakeir.launch_path() == "native" and cakeir.launch_path_reason().startswith("loaded from ")


def kernels():
    """The same kernel twice: through the native path and through the Python path."""
    fast = cakeir.load_data(GEMM, b"\x7fELF").gemm
    slow = cakeir.load_data(GEMM, b"\x7fELF").gemm
    slow.native_launch = False
    assert fast.native_launch and not slow.native_launch
    return fast, slow


def outcome(fake_cuda, torch, call):
    """What one call did: the launch as the fake driver recorded it, or the error."""
    launches, encodes, guards = fake_cuda.launches, fake_cuda.tensor_map_encodes, len(torch.guards)
    try:
        call()
    except cakeir.CakeError as error:
        return ("error", type(error).__name__, str(error), fake_cuda.launches - launches)
    count = fake_cuda.num_params
    return ("launched", fake_cuda.launches - launches, tuple(fake_cuda.grid), tuple(fake_cuda.block),
            tuple(fake_cuda.cluster), fake_cuda.shared_mem_bytes, fake_cuda.stream, count,
            tuple(bytes(fake_cuda.params[i]) for i in range(count)), fake_cuda.tensor_map_encodes - encodes,
            list(torch.guards[guards:]))


def same_outcome(fake_cuda, torch, fast, slow, *args, **kwargs):
    """Calls both kernels alike; asserts the outcomes are equal; returns which paths the native kernel's call took."""
    before = fast.launch_counts()
    got = outcome(fake_cuda, torch, lambda: fast(*args, **kwargs))
    taken = {path: count - before[path] for path, count in fast.launch_counts().items() if count != before[path]}
    expected = outcome(fake_cuda, torch, lambda: slow(*args, **kwargs))
    assert got == expected
    return taken


def gemm_args(torch, a=A, b=B, c=C, m=256, k=512, device=0, a_dtype="torch.bfloat16"):
    T = torch.Tensor
    return (T(a, (m, k), a_dtype, device), T(b, (512, k), "torch.bfloat16", device),
            T(c, (m, 512), "torch.float32", device))


def test_native_launches_match_the_python_path(fake_cuda, torch, native):
    fast, slow = kernels()
    args = gemm_args(torch)
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}  # prepares, kept
    for _ in range(3):
        assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    # New addresses (new TMA descriptors), old ones again (kept descriptors), an explicit int stream.
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, a=A + 0x10000, c=C + 0x40000), 1.0) == \
        {"native": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0, stream=0x1234) == {"native": 1}
    assert fake_cuda.stream == 0x1234
    torch.raw_stream = 0x5550  # torch's current stream changed: asked on every call
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    assert fake_cuda.stream == 0x5550
    # Scalars: each type and value is its own signature (-0.0 is not 0.0; an int or a bool is not a float).
    for alpha in (0.5, -0.0, 0.0, 2, True, 0.5):
        same_outcome(fake_cuda, torch, fast, slow, *args, alpha)
    assert same_outcome(fake_cuda, torch, fast, slow, *args, -0.0) == {"native": 1}
    # Address errors on a kept signature read as on the Python path.
    for bad in (gemm_args(torch, a=A + 8), gemm_args(torch, c=0)):
        assert same_outcome(fake_cuda, torch, fast, slow, *bad, 1.0) == {}
    error = outcome(fake_cuda, torch, lambda: fast(*gemm_args(torch, a=A + 8), 1.0))
    assert error[:2] == ("error", "CakeArgumentError") and "is not aligned to 16 bytes" in error[2]
    assert 0 < native.PreparedCall.__doc__.count("(")


def test_mismatching_calls_fall_back(fake_cuda, torch, native):
    fast, slow = kernels()
    args = gemm_args(torch)
    same_outcome(fake_cuda, torch, fast, slow, *args, 1.0)
    # Another shape: prepared by the Python path once, then native.
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, m=512), 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, m=512), 1.0) == {"native": 1}
    # Errors the Python path reports: a shape that breaks `requires`, another dtype, a CPU tensor.
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, k=500), 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, a_dtype="torch.float16"), 1.0) == \
        {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, device=-1), 1.0) == {"general": 1}
    # A non-contiguous tensor (a Tensor subclass with its own strides): another signature, which this kernel
    # refuses, each time on the Python path.
    class Strided(torch.Tensor):
        def stride(self):
            return (1024, 1)
    strided = (Strided(A, (256, 512), "torch.bfloat16"),) + args[1:]
    for _ in range(2):
        assert same_outcome(fake_cuda, torch, fast, slow, *strided, 1.0) == {"prepared": 1}
    error = outcome(fake_cuda, torch, lambda: fast(*strided, 1.0))
    assert error[:2] == ("error", "CakeArgumentError") and "expects a contiguous (row-major) tensor" in error[2]
    # Another device: torch's device guard, on the Python path each time.
    for stream in (None, None, 0x4321):
        assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, device=1), 1.0, stream=stream) == \
            {"prepared": 1}
    torch.current_device = 1  # now current: kept by the next Python-path call, native after that
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, device=1), 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, device=1), 1.0) == {"native": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}
    torch.current_device = 0  # device 1's signature is kept, but not current: the guard, whatever the stream
    assert same_outcome(fake_cuda, torch, fast, slow, *gemm_args(torch, device=1), 1.0, stream=0x4321) == \
        {"prepared": 1}
    assert torch.guards[-2:] == [1, 1] and fake_cuda.stream == 0x4321
    # Keyword arguments, num_sms=, a stream object, a stream out of range, too few arguments.
    assert same_outcome(fake_cuda, torch, fast, slow, *args[:2], C=args[2], alpha=1.0) == {"general": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0, num_sms=4) == {"general": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0,
                        stream=types.SimpleNamespace(cuda_stream=0x77)) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0, stream=-1) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *args) == {"general": 1}
    # A scalar of another kind, a DevicePtr without a shape.
    assert same_outcome(fake_cuda, torch, fast, slow, *args, "1.0") == {"general": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, cakeir.DevicePtr(A), *args[1:], 1.0) == {"general": 1}
    # A torch module swapped in sys.modules: its tensors are read through it.
    other = sys.modules["torch"] = FakeTorch()
    other.raw_stream = 0x9990
    assert same_outcome(fake_cuda, other, fast, slow, *gemm_args(other), 1.0) == {"native": 1}
    assert fake_cuda.stream == 0x9990


def test_device_ptrs_take_the_native_path(fake_cuda, native):
    fast, slow = kernels()
    torch = FakeTorch()  # records no guards: DevicePtrs never enter one

    def ptrs(a=A, strides=None, dtype="bf16"):
        return (cakeir.DevicePtr(a, (256, 512), dtype, strides), cakeir.DevicePtr(B, (512, 512), "bf16"),
                cakeir.DevicePtr(C, (256, 512), "f32"))
    assert same_outcome(fake_cuda, torch, fast, slow, *ptrs(), 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *ptrs(a=A + 0x100), 1.0) == {"native": 1}
    assert fake_cuda.stream is None  # no torch tensor: the legacy default stream
    assert same_outcome(fake_cuda, torch, fast, slow, *ptrs(strides=(512, 1)), 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *ptrs(strides=(1024, 1)), 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *ptrs(dtype="f16"), 1.0) == {"prepared": 1}


def test_native_launch_can_be_turned_off_per_kernel(fake_cuda, native):
    fast, _ = kernels()
    args = (cakeir.DevicePtr(A, (256, 512), "bf16"), cakeir.DevicePtr(B, (512, 512), "bf16"),
            cakeir.DevicePtr(C, (256, 512), "f32"), 1.0)
    fast(*args)
    fast(*args)
    fast.native_launch = False
    fast(*args)
    assert fast.launch_counts() == {"native": 1, "prepared": 2, "general": 0}
    fast.native_launch = True
    fast(*args)
    fast(*args)
    assert fast.launch_counts() == {"native": 2, "prepared": 3, "general": 0}


def test_cake_no_native_forces_the_python_path(lib):
    env = dict(os.environ, CAKE_NO_NATIVE="1", CAKE_RUNTIME_LIB=lib.cake_library_path)
    code = ("import cakeir; k = cakeir.load_data(%r, b'').gemm; "
            "print(cakeir.launch_path(), '|', cakeir.launch_path_reason(), '|', k.native_launch)" % GEMM)
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=os.path.join(REPO, "runtime", "python"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0, result.stdout.decode()
    assert result.stdout.decode().split() == ["python", "|", "CAKE_NO_NATIVE", "is", "set", "|", "False"]
