"""A stand-in for the `torch` module as cakeir reads it, with tensors that torch's DLPack C exchange API would
describe: for the Python tests of the native launch path and the CPU run of bench/launch_overhead.py, on a
machine without a GPU (and without a CUDA torch).

    fake = load_fake_dlpack(path)            # the _cake_fake_dlpack extension (fake_dlpack_tensor.c)
    torch = ExchangeTorch(fake)              # put it in sys.modules["torch"]
    a = torch.Tensor(0x7f0000000000, (256, 512), "torch.bfloat16")

Its Tensor is the extension's Tensor (so the native path reads it through the type's __dlpack_c_exchange_api__,
as it reads torch.Tensor) with the methods and attributes cakeir's Python path reads from a torch tensor:
dtype (its name, such as "torch.bfloat16"), shape, stride(), data_ptr(), get_device(), device.index, is_cuda;
torch.nn.Parameter is a subclass of it that adds nothing.
set() changes a tensor in place (its address, shape, strides, dtype, device), as torch's set_() or resize_()
can.  torch._C's current-device and raw-stream queries, torch.cuda.device (a guard that records the device it
entered) and torch.cuda.current_stream are there too; `current_device` and `raw_stream` set what they say."""

import importlib.machinery
import importlib.util
import types

# torch dtype name -> DLPack (code, bits, lanes), as torch's exchange API gives them
DLPACK_DTYPES = {
    "torch.bool": (6, 8, 1), "torch.int32": (0, 32, 1), "torch.uint32": (1, 32, 1), "torch.int64": (0, 64, 1),
    "torch.float16": (2, 16, 1), "torch.bfloat16": (4, 16, 1), "torch.float32": (2, 32, 1),
    "torch.float64": (2, 64, 1), "torch.float8_e4m3fn": (10, 8, 1), "torch.float8_e5m2": (12, 8, 1),
    "torch.uint8": (1, 8, 1),
}
CUDA, CPU = 2, 1  # DLDeviceType


def load_fake_dlpack(path):
    """The _cake_fake_dlpack extension module at `path`."""
    loader = importlib.machinery.ExtensionFileLoader("_cake_fake_dlpack", path)
    spec = importlib.util.spec_from_file_location("_cake_fake_dlpack", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def contiguous_strides(shape):
    strides, running = [], 1
    for size in reversed(shape):
        strides.insert(0, running)
        running *= size
    return tuple(strides)


class ExchangeTorch(types.ModuleType):
    def __init__(self, fake):
        super().__init__("torch")
        self.current_device, self.guards = 0, []
        self._fake = fake
        self.raw_stream = 0xABC0
        this = self

        class Tensor(fake.Tensor):
            def __init__(self, ptr, shape, dtype, device=0, strides=None, fail=False):
                self.set(ptr, shape, dtype, device, strides, fail)

            def set(self, ptr, shape, dtype, device=0, strides=None, fail=False):
                """device: a CUDA device index, or -1 for the CPU."""
                self._ptr, self.shape, self.dtype = ptr, tuple(shape), dtype
                self._strides = contiguous_strides(self.shape) if strides is None else tuple(strides)
                self.device = types.SimpleNamespace(index=device if device >= 0 else None,
                                                    type="cuda" if device >= 0 else "cpu")
                self.is_cuda = device >= 0
                self._set(ptr, self.shape, self._strides, DLPACK_DTYPES.get(dtype, (5, 64, 1)),
                          (CUDA, device) if device >= 0 else (CPU, 0), fail=fail)

            def stride(self):
                return self._strides

            def data_ptr(self):
                return self._ptr

            def get_device(self):
                return -1 if self.device.index is None else self.device.index

        class Guard:
            def __init__(self, device):
                self.device = device if isinstance(device, int) else device.index

            def __enter__(self):
                this.guards.append(self.device)

            def __exit__(self, *exc):
                return False

        self.Tensor = Tensor
        self.nn = types.SimpleNamespace(Parameter=type("Parameter", (Tensor,), {}))
        self._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda index: this.raw_stream + index,
                                        _cuda_getDevice=lambda: this.current_device)
        self.cuda = types.SimpleNamespace(device=Guard, current_stream=lambda d: types.SimpleNamespace(
            cuda_stream=this.raw_stream + (d if isinstance(d, int) else d.index)))

    @property
    def raw_stream(self):
        return self._raw_stream

    @raw_stream.setter
    def raw_stream(self, value):
        """torch's current stream of device 0 (device d: value + d), through both of its queries."""
        self._raw_stream = value
        self._fake.set_stream(value)
