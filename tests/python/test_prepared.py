"""The prepared-launch path (Kernel._call_prepared -> cake_launch_prepare / cake_launch_prepared) through the
fake CUDA driver, with a stand-in torch module whose tensors report CUDA devices (no GPU, no torch needed):
the launch is bound once per shape signature, later calls pass only addresses, TMA descriptors are encoded
once per address set, and address checks, streams and device guards behave as on the general path."""

import ctypes
import sys
import types

import pytest

import cakeir
from test_runtime import A, B, C, GEMM, FakeCudaArray, expect_error


class Device:
    def __init__(self, index):
        self.type, self.index = "cuda", index

    def __eq__(self, other):
        return isinstance(other, Device) and other.index == self.index

    def __hash__(self):
        return hash(("cuda", self.index))

    def __str__(self):
        return "cpu" if self.index < 0 else "cuda:%d" % self.index


class FakeTorch(types.ModuleType):
    """Just what the runtime reads: Tensor (dtype, shape, stride(), device, data_ptr(), is_cuda),
    torch._C's raw-stream and current-device queries, torch.cuda.device (a guard) and current_stream."""

    def __init__(self):
        super().__init__("torch")
        self.current_device, self.raw_stream, self.guards = 0, 0xABC0, []
        fake = self

        class Tensor:
            def __init__(self, ptr, shape, dtype, device=0):
                self._ptr, self.shape, self.dtype = ptr, tuple(shape), dtype
                self.device, self.is_cuda = Device(device), device >= 0

            def stride(self):
                strides, running = [], 1
                for size in reversed(self.shape):
                    strides.insert(0, running)
                    running *= size
                return tuple(strides)

            def data_ptr(self):
                return self._ptr

            def get_device(self):
                return self.device.index

        class Guard:
            def __init__(self, device):
                self.device = device

            def __enter__(self):
                fake.guards.append(self.device)

            def __exit__(self, *exc):
                return False

        self.Tensor = Tensor
        self._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: fake.raw_stream + index,
                                        _cuda_getDevice=lambda: fake.current_device)
        self.cuda = types.SimpleNamespace(device=Guard,
                                          current_stream=lambda d: types.SimpleNamespace(
            cuda_stream=fake.raw_stream + (d if isinstance(d, int) else d.index)))


@pytest.fixture
def torch():
    saved = sys.modules.get("torch")
    fake = sys.modules["torch"] = FakeTorch()
    yield fake
    del sys.modules["torch"]
    if saved is not None:
        sys.modules["torch"] = saved


def first_param(state, index):
    return ctypes.c_uint64.from_buffer_copy(bytes(state.params[index][:8])).value


def test_prepared_launch_binds_once_and_encodes_tensor_maps_once(fake_cuda, torch):
    module = cakeir.load_data(GEMM, b"\x7fELF")
    gemm = module.gemm
    T = torch.Tensor

    def args(a=A, b=B, c=C, m=256):
        return T(a, (m, 512), "torch.bfloat16"), T(b, (512, 512), "torch.bfloat16"), T(c, (m, 512), "torch.float32")

    gemm(*args(), 1.0)
    assert fake_cuda.launches == 1 and len(gemm._prepared) == 1
    assert fake_cuda.tensor_map_encodes == 2 and gemm.tensor_map_encodes() == 2  # A and B
    assert fake_cuda.stream == 0xABC0 and torch.guards == []  # torch's current stream; device 0 already current
    for _ in range(5):
        gemm(*args(), 1.0)
    assert fake_cuda.launches == 6 and len(gemm._prepared) == 1 and fake_cuda.tensor_map_encodes == 2
    # New addresses reach the kernel's pointer slots and get their own descriptors; old ones are kept.
    gemm(*args(a=A + 0x10000, c=C + 0x40000), 1.0)
    assert first_param(fake_cuda, 0) == A + 0x10000 and first_param(fake_cuda, 2) == C + 0x40000
    assert first_param(fake_cuda, 1) == B and fake_cuda.tensor_map_encodes == 4
    assert fake_cuda.tm_address == B  # the last map encoded is B's (CUDA order: A, then B)
    gemm(*args(), 1.0)
    assert fake_cuda.tensor_map_encodes == 4 and first_param(fake_cuda, 0) == A
    # Another shape or scalar value is another prepared launch; the same checks as the general path.
    gemm(*args(m=512), 1.0)
    assert len(gemm._prepared) == 2 and list(fake_cuda.grid) == [4, 2, 1]
    gemm(*args(), 0.5)
    assert len(gemm._prepared) == 3
    gemm(*args(), 0.0)
    gemm(*args(), -0.0)  # equal to 0.0 but other bits: its own prepared launch
    assert len(gemm._prepared) == 5 and bytes(fake_cuda.params[6][:4]) == b"\x00\x00\x00\x80"
    expect_error(cakeir.CakeArgumentError, "dim 0 is 256 but the kernel expects `M` = 512", gemm,
                 T(A, (512, 512), "torch.bfloat16"), T(B, (512, 512), "torch.bfloat16"),
                 T(C, (256, 512), "torch.float32"), 1.0)
    expect_error(cakeir.CakeRequirementError, "requirement `K % BK == 0`", gemm,
                 T(A, (256, 500), "torch.bfloat16"), T(B, (512, 500), "torch.bfloat16"),
                 T(C, (256, 512), "torch.float32"), 1.0)
    # Address checks on a prepared hit read as on the first call.
    launches = fake_cuda.launches
    expect_error(cakeir.CakeArgumentError, "argument 0 (A): device address 0x7f0000000008 is not aligned to 16 bytes",
                 gemm, *args(a=A + 8), 1.0)
    expect_error(cakeir.CakeArgumentError, "argument 2 (C): device address is null", gemm, *args(c=0), 1.0)
    assert fake_cuda.launches == launches
    # An explicit stream; a tensor on another device launches under torch's guard for it.
    gemm(*args(), 1.0, stream=0x1234)
    assert fake_cuda.stream == 0x1234
    gemm(T(A, (256, 512), "torch.bfloat16", 1), T(B, (512, 512), "torch.bfloat16", 1),
         T(C, (256, 512), "torch.float32", 1), 1.0)
    assert torch.guards == [1] and fake_cuda.stream == 0xABC1
    expect_error(cakeir.CakeArgumentError, "argument 0 (A): tensor is on cpu", gemm,
                 T(A, (256, 512), "torch.bfloat16", -1), *args()[1:], 1.0)
    # Keyword arguments and other argument kinds take the general path (nothing prepared).
    count = len(gemm._prepared)
    gemm(*args()[:2], C=args()[2], alpha=1.0)
    assert len(gemm._prepared) == count and fake_cuda.launches == launches + 3


def test_cuda_array_interface_stream(fake_cuda):
    module = cakeir.load_data(GEMM, b"\x7fELF")

    def array(ptr, shape, typestr, stream):
        a = FakeCudaArray(ptr, shape, typestr)
        a.__cuda_array_interface__["stream"] = stream
        return a

    module.gemm(array(A, (256, 512), "<V2", 0x77), array(B, (512, 512), "<V2", None),
                FakeCudaArray(C, (256, 512), "<f4"), 1.0)
    assert fake_cuda.stream == 0x77  # the producer's stream (v3 "stream")
    module.gemm(array(A, (256, 512), "<V2", 2), FakeCudaArray(B, (512, 512), "<V2"),
                FakeCudaArray(C, (256, 512), "<f4"), 1.0, stream=0x99)
    assert fake_cuda.stream == 0x99  # an explicit stream= wins
    expect_error(cakeir.CakeArgumentError, "stream is 0, which the protocol does not allow", module.gemm,
                 array(A, (256, 512), "<V2", 0), FakeCudaArray(B, (512, 512), "<V2"),
                 FakeCudaArray(C, (256, 512), "<f4"), 1.0)
