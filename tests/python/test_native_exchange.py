"""The native launch path reading torch tensors through DLPack's C exchange API (torch.Tensor's
__dlpack_c_exchange_api__; runtime/python_extension/prepared_call.c), with the fake CUDA driver and the stand-in
torch of runtime/testing/fake_torch.py, whose tensors carry such an API: every call launches exactly as the
Python path does or fails with its error; each call reads each tensor afresh (an address, shape, strides, dtype
or device changed in place on the same tensor object is seen on the next call: nothing is trusted from an
earlier one); the stream is torch's current one, asked through the API; whatever the API cannot describe (a CPU
tensor, a failing read) and every mismatch goes to the Python path, which reports it."""

import os
import sys

import pytest

import cakeir
from test_native_launch import kernels, native, outcome, same_outcome  # noqa: F401  (native: a fixture)
from test_runtime import A, B, C

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "testing"))

from fake_torch import ExchangeTorch, load_fake_dlpack  # noqa: E402


@pytest.fixture
def fake_dlpack(lib):
    path = os.environ.get("CAKE_FAKE_DLPACK_MODULE") or os.path.join(
        os.path.dirname(os.path.dirname(lib.cake_library_path)), "runtime", "_cake_fake_dlpack.abi3.so")
    if not os.path.isfile(path):
        pytest.skip("%s is not built" % path)
    return load_fake_dlpack(path)


@pytest.fixture
def torch(fake_dlpack):
    saved = sys.modules.get("torch")
    fake = sys.modules["torch"] = ExchangeTorch(fake_dlpack)
    yield fake
    del sys.modules["torch"]
    if saved is not None:
        sys.modules["torch"] = saved


def gemm_args(torch, a=A, m=256, k=512, device=0, a_dtype="torch.bfloat16"):
    T = torch.Tensor
    return (T(a, (m, k), a_dtype, device), T(B, (512, k), "torch.bfloat16", device),
            T(C, (m, 512), "torch.float32", device))


def test_tensors_are_read_through_the_exchange_api(fake_cuda, torch, fake_dlpack, native):
    fast, slow = kernels()
    args = gemm_args(torch)
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}
    reads, (fills, queries) = fast._native_call.exchange_reads, fake_dlpack.counts()
    assert reads == 3  # remember() read the three tensors of the prepared call
    for _ in range(3):
        assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    assert fast._native_call.exchange_reads == reads + 9
    # torch's current stream, asked through the API on each call (the Python path asks torch._C)
    assert fake_dlpack.counts()[1] == queries + 3
    torch.raw_stream = 0x5550
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    assert fake_cuda.stream == 0x5550
    # an explicit stream is used as given, without asking
    queries = fake_dlpack.counts()[1]
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0, stream=0x1234) == {"native": 1}
    assert fake_cuda.stream == 0x1234 and fake_dlpack.counts()[1] == queries
    assert fake_dlpack.counts()[0] > fills


def test_a_tensor_changed_in_place_is_read_again(fake_cuda, torch, native):
    fast, slow = kernels()
    args = gemm_args(torch)
    same_outcome(fake_cuda, torch, fast, slow, *args, 1.0)
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    a = args[0]
    # a new address (as after set_()): launched with it, never with the one read before
    a.set(A + 0x10000, (256, 512), "torch.bfloat16")
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}
    # a misaligned address: the runtime's alignment check, same error as the Python path
    a.set(A + 8, (256, 512), "torch.bfloat16")
    error = outcome(fake_cuda, torch, lambda: fast(*args, 1.0))
    assert error[:2] == ("error", "CakeArgumentError") and "is not aligned to 16 bytes" in error[2]
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {}
    # another shape (as after resize_()), other strides, another dtype: the Python path, which checks them
    a.set(A, (256, 500), "torch.bfloat16")
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}
    error = outcome(fake_cuda, torch, lambda: fast(*args, 1.0))
    assert error[:2] == ("error", "CakeArgumentError")
    a.set(A, (256, 512), "torch.bfloat16", strides=(1024, 1))
    for _ in range(2):
        assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}
    error = outcome(fake_cuda, torch, lambda: fast(*args, 1.0))
    assert "expects a contiguous (row-major) tensor" in error[2]
    a.set(A, (256, 512), "torch.float16")
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"prepared": 1}
    error = outcome(fake_cuda, torch, lambda: fast(*args, 1.0))
    assert error[:2] == ("error", "CakeArgumentError") and "f16" in error[2] and "bf16" in error[2]
    # back as it was: the kept signature again
    a.set(A, (256, 512), "torch.bfloat16")
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}


def test_what_the_api_cannot_describe_goes_to_the_python_path(fake_cuda, torch, native):
    fast, slow = kernels()
    args = gemm_args(torch)
    same_outcome(fake_cuda, torch, fast, slow, *args, 1.0)
    # a CPU tensor: the Python path's error
    cpu = (torch.Tensor(A, (256, 512), "torch.bfloat16", device=-1),) + args[1:]
    assert same_outcome(fake_cuda, torch, fast, slow, *cpu, 1.0) == {"general": 1}
    error = outcome(fake_cuda, torch, lambda: fast(*cpu, 1.0))
    assert error[:2] == ("error", "CakeArgumentError") and "CAKE kernels need CUDA tensors" in error[2]
    # a read that fails (as torch's does for a tensor without storage): the Python path, no error leaks
    failing = (torch.Tensor(A, (256, 512), "torch.bfloat16", fail=True),) + args[1:]
    assert same_outcome(fake_cuda, torch, fast, slow, *failing, 1.0) == {"prepared": 1}
    # a tensor on a device that is not the current one: the Python path and its device guard
    other = gemm_args(torch, device=1)
    assert same_outcome(fake_cuda, torch, fast, slow, *other, 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, torch, fast, slow, *other, 1.0) == {"prepared": 1}
    assert torch.guards[-2:] == [1, 1]
    # a subclass of torch.Tensor may say other things through its methods than the API would: read by them
    class Strided(torch.Tensor):
        def stride(self):
            return (1024, 1)
    strided = (Strided(A, (256, 512), "torch.bfloat16"),) + args[1:]
    reads = fast._native_call.exchange_reads
    for _ in range(2):
        assert same_outcome(fake_cuda, torch, fast, slow, *strided, 1.0) == {"prepared": 1}
    assert fast._native_call.exchange_reads - reads <= 4  # B and C only, twice
    # torch.nn.Parameter adds nothing to what is read: through the API
    parameter = (torch.nn.Parameter(A, (256, 512), "torch.bfloat16"),) + args[1:]
    reads = fast._native_call.exchange_reads
    assert same_outcome(fake_cuda, torch, fast, slow, *parameter, 1.0) == {"native": 1}
    assert fast._native_call.exchange_reads - reads == 3
    assert same_outcome(fake_cuda, torch, fast, slow, *args, 1.0) == {"native": 1}


def test_without_the_api_tensors_are_read_through_their_methods(fake_cuda, torch, native):
    fast, slow = kernels()
    sys.modules["torch"] = plain = type(torch)(torch._fake)
    plain.Tensor = type("Tensor", (plain.Tensor,), {"__dlpack_c_exchange_api__": None})  # as torch < 2.10
    args = gemm_args(plain)
    assert same_outcome(fake_cuda, plain, fast, slow, *args, 1.0) == {"prepared": 1}
    assert same_outcome(fake_cuda, plain, fast, slow, *args, 1.0) == {"native": 1}
    assert fast._native_call.exchange_reads == 0
