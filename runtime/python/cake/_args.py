"""Turning Python launch arguments into cake_arg structs: torch tensors, objects with
__cuda_array_interface__, DevicePtr / raw int device addresses, and Python scalars.  Pure Python apart
from the ctypes structs; keeps every ctypes array it creates alive in `keepalive`."""

import contextlib
import ctypes
import numbers
import sys

from . import _dtypes
from ._errors import CakeArgumentError
from ._lib import ARG_SCALAR, ARG_TENSOR, CakeArg


class DevicePtr:
    """A device address with optional element type, shape and strides (in elements).

    Without a shape, the kernel's manifest supplies it from shape variables passed as keyword arguments:
    kernel(DevicePtr(a_ptr), ..., M=4096, K=512).  A plain int is the same as DevicePtr(int)."""

    def __init__(self, ptr, shape=None, dtype=None, strides=None):
        if not isinstance(ptr, numbers.Integral) or isinstance(ptr, bool) or ptr < 0:
            raise CakeArgumentError("DevicePtr needs a non-negative integer address, got %r" % (ptr,))
        if strides is not None and shape is None:
            raise CakeArgumentError("DevicePtr: strides given without a shape")
        self.ptr = int(ptr)
        self.shape = None if shape is None else tuple(int(s) for s in shape)
        self.strides = None if strides is None else tuple(int(s) for s in strides)
        self.dtype = dtype if dtype is None or isinstance(dtype, int) else _dtypes.from_name(dtype)
        if self.dtype == _dtypes.INVALID:
            raise CakeArgumentError("DevicePtr: unknown dtype %r" % (dtype,))

    def __repr__(self):
        return "DevicePtr(0x%x, shape=%r, dtype=%s, strides=%r)" % (
            self.ptr, self.shape, None if self.dtype is None else _dtypes.name(self.dtype), self.strides)


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def is_torch_tensor(obj):
    tensor_type = _torch_tensor_type()
    return tensor_type is not None and isinstance(obj, tensor_type)


def _int_array(values, keepalive):
    array = (ctypes.c_int64 * max(len(values), 1))(*values)
    keepalive.append(array)
    return ctypes.cast(array, ctypes.POINTER(ctypes.c_int64))


def _fill_tensor(arg, dtype, data, shape, strides, keepalive):
    arg.kind = ARG_TENSOR
    arg.dtype = dtype
    arg.data = data
    if shape is None:
        arg.rank = 0
        return arg
    arg.rank = len(shape)
    arg.shape = _int_array(shape, keepalive)
    if strides is not None:
        arg.strides = _int_array(strides, keepalive)
    return arg


def tensor_arg(obj, label, expected_dtype, keepalive):
    """cake_arg for a tensor parameter whose dtype is `expected_dtype` (used for opaque typestrs and raw
    pointers; the runtime still checks the dtype of everything else)."""
    arg = CakeArg()
    if isinstance(obj, DevicePtr):
        dtype = expected_dtype if obj.dtype is None else obj.dtype
        return _fill_tensor(arg, dtype, obj.ptr, obj.shape, obj.strides, keepalive)
    if is_torch_tensor(obj):
        if not obj.is_cuda:
            raise CakeArgumentError("%s: tensor is on %s; CAKE kernels need CUDA tensors" % (label, obj.device))
        try:
            dtype = _dtypes.torch_dtype_to_dtype(obj.dtype)
        except ValueError as error:
            raise CakeArgumentError("%s: %s" % (label, error)) from None
        return _fill_tensor(arg, dtype, obj.data_ptr(), tuple(obj.shape), tuple(obj.stride()), keepalive)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return _fill_tensor(arg, *_from_interface(interface, label, expected_dtype), keepalive=keepalive)
    if isinstance(obj, numbers.Integral) and not isinstance(obj, bool):
        if obj < 0:
            raise CakeArgumentError("%s: negative device address %d" % (label, obj))
        return _fill_tensor(arg, expected_dtype, int(obj), None, None, keepalive)
    raise CakeArgumentError("%s: expected a CUDA tensor (torch tensor, __cuda_array_interface__, DevicePtr or int "
                            "address), got %s" % (label, type(obj).__name__))


def _from_interface(interface, label, expected_dtype):
    """(dtype, data, shape, strides-in-elements) from a __cuda_array_interface__ dict."""
    try:
        shape = tuple(int(s) for s in interface["shape"])
        data = interface["data"][0]
        typestr = interface["typestr"]
    except (KeyError, TypeError, IndexError) as error:
        raise CakeArgumentError("%s: malformed __cuda_array_interface__ (%s)" % (label, error)) from None
    if interface.get("mask") is not None:
        raise CakeArgumentError("%s: masked arrays are not supported" % label)
    try:
        dtype = _dtypes.typestr_to_dtype(typestr, expected_dtype)
    except ValueError as error:
        raise CakeArgumentError("%s: %s" % (label, error)) from None
    itemsize = _dtypes.SIZES[dtype]
    strides = interface.get("strides")
    if strides is not None:
        element_strides = []
        for stride in strides:
            if stride % itemsize:
                raise CakeArgumentError("%s: stride of %d bytes is not a multiple of the element size %d"
                                        % (label, stride, itemsize))
            element_strides.append(stride // itemsize)
        strides = tuple(element_strides)
    return dtype, int(data or 0), shape, strides


def scalar_arg(value, label):
    arg = CakeArg()
    arg.kind = ARG_SCALAR
    if isinstance(value, bool):
        arg.dtype, arg.i = _dtypes.PRED, int(value)
    elif isinstance(value, numbers.Integral):
        value = int(value)
        if not -(1 << 63) <= value < (1 << 63):
            raise CakeArgumentError("%s: integer %d does not fit in 64 bits" % (label, value))
        arg.dtype, arg.i = _dtypes.I64, value
    elif isinstance(value, numbers.Real):
        arg.dtype, arg.f = _dtypes.F64, float(value)
    else:
        raise CakeArgumentError("%s: expected a number, got %s" % (label, type(value).__name__))
    return arg


def torch_device_of(args):
    """A context manager that makes the device of the first torch tensor argument current (torch's
    device guard, which also makes that device's primary CUDA context current); a no-op otherwise."""
    for arg in args:
        if is_torch_tensor(arg):
            torch = sys.modules["torch"]
            device = getattr(torch.cuda, "device", None)
            if device is not None:
                return device(arg.device)
    return contextlib.nullcontext()


def stream_handle(stream, args):
    """The CUstream to launch on: an int, an object with .cuda_stream (torch) or .ptr (cupy), or None:
    then torch's current stream on the device of the first torch tensor argument, else the default stream."""
    if stream is None:
        for arg in args:
            if is_torch_tensor(arg):
                torch = sys.modules["torch"]
                return torch.cuda.current_stream(arg.device).cuda_stream
        return None
    if isinstance(stream, numbers.Integral):
        return int(stream)
    for attribute in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise CakeArgumentError("stream: expected an int handle or a stream object, got %s" % type(stream).__name__)
