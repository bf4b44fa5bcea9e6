"""Turning Python launch arguments into cake_arg structs: torch tensors, objects with
__cuda_array_interface__, DevicePtr / raw int device addresses, and Python scalars.  Pure Python apart
from the ctypes structs; keeps every ctypes array it creates alive in `keepalive`.

Every integer is checked before it reaches ctypes, which would otherwise wrap it silently modulo 2^64
(a dim of 2^64 + 4096 would reach the kernel as 4096): addresses and stream handles are 0 .. 2^64 - 1,
dims, strides, shape variables and integer scalars -2^63 .. 2^63 - 1, and only real ints are integers
(not bools, floats or strings: 4096.9 is not a dim).  Objects handed in are read defensively: shapes and
strides must be tuples or lists of at most MAX_RANK entries, and an exception raised while reading a
hostile object becomes a CakeArgumentError naming the argument."""

from __future__ import annotations

import contextlib
import ctypes
import numbers
import sys
from typing import Optional, Sequence, Union

from . import _dtypes
from ._errors import CakeArgumentError, CakeError
from ._lib import ARG_SCALAR, ARG_TENSOR, CakeArg

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
MAX_RANK = 8  # kMaxTensorRank in runtime/src/Manifest.h


def is_int(value):
    """True for Python ints and other integral numbers (numpy integers), never for bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def checked_int(value, label, low=INT64_MIN, high=INT64_MAX, what="an integer"):
    """int(value) after checking that it is an integer in low..high; CakeArgumentError otherwise."""
    if not is_int(value):
        raise CakeArgumentError("%s: expected %s, got %s %r" % (label, what, type(value).__name__, value))
    value = int(value)
    if not low <= value <= high:
        raise CakeArgumentError("%s: %d is outside %d..%d" % (label, value, low, high))
    return value


def checked_address(value, label):
    return checked_int(value, label, 0, UINT64_MAX, "a device address (an int in 0..2^64-1)")


def checked_ints(values, label, what, low=INT64_MIN, high=INT64_MAX):
    """A tuple of checked ints from a tuple or list of at most MAX_RANK entries."""
    if not isinstance(values, (tuple, list)):
        raise CakeArgumentError("%s: %s must be a tuple or list, got %s" % (label, what, type(values).__name__))
    if len(values) > MAX_RANK:
        raise CakeArgumentError("%s: %s has %d entries; tensors have at most %d dims"
                                % (label, what, len(values), MAX_RANK))
    return tuple(checked_int(v, "%s: %s[%d]" % (label, what, i), low, high) for i, v in enumerate(values))


class DevicePtr:
    """A device address with optional element type, shape and strides (in elements).

    Without a shape, the kernel's manifest supplies it from shape variables passed as keyword arguments:
    kernel(DevicePtr(a_ptr), ..., M=4096, K=512).  A plain int is the same as DevicePtr(int)."""

    def __init__(self, ptr: int, shape: Optional[Sequence[int]] = None, dtype: Union[str, int, None] = None,
                 strides: Optional[Sequence[int]] = None) -> None:
        if not is_int(ptr) or ptr < 0:
            raise CakeArgumentError("DevicePtr needs a non-negative integer address, got %r" % (ptr,))
        self.ptr = checked_address(ptr, "DevicePtr")
        if strides is not None and shape is None:
            raise CakeArgumentError("DevicePtr: strides given without a shape")
        self.shape = None if shape is None else checked_ints(shape, "DevicePtr", "shape")
        self.strides = None if strides is None else checked_ints(strides, "DevicePtr", "strides")
        if self.strides is not None and self.shape is not None and len(self.strides) != len(self.shape):
            raise CakeArgumentError("DevicePtr: %d strides for a shape of %d dims"
                                    % (len(self.strides), len(self.shape)))
        if dtype is not None and not is_int(dtype) and not isinstance(dtype, str):
            raise CakeArgumentError("DevicePtr: dtype must be a name such as 'f32', got %r" % (dtype,))
        self.dtype = dtype if dtype is None or is_int(dtype) else _dtypes.from_name(dtype)
        if self.dtype is not None and self.dtype not in _dtypes.NAMES:
            raise CakeArgumentError("DevicePtr: unknown dtype %r" % (dtype,))

    def __repr__(self) -> str:
        return "DevicePtr(0x%x, shape=%r, dtype=%s, strides=%r)" % (
            self.ptr, self.shape, None if self.dtype is None else _dtypes.name(self.dtype), self.strides)


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


def is_torch_tensor(obj):
    tensor_type = _torch_tensor_type()
    return isinstance(tensor_type, type) and isinstance(obj, tensor_type)


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


def tensor_arg(obj, label, expected_dtype, keepalive, writes=True):
    """cake_arg for a tensor parameter whose dtype is `expected_dtype` (used for opaque typestrs and raw
    pointers; the runtime still checks the dtype of everything else).  `writes`: the kernel may write the
    tensor, so a read-only array is refused.  Anything a hostile object raises while it is read becomes a
    CakeArgumentError."""
    try:
        return _tensor_arg(obj, label, expected_dtype, keepalive, writes)
    except CakeError:
        raise
    except Exception as error:  # noqa: BLE001 - a hostile object may raise anything
        raise CakeArgumentError("%s: reading the argument raised %s: %s" % (label, type(error).__name__, error)) \
            from error


def _tensor_arg(obj, label, expected_dtype, keepalive, writes):
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
        shape = checked_ints(tuple(obj.shape), label, "shape")
        strides = checked_ints(tuple(obj.stride()), label, "strides")
        if len(strides) != len(shape):
            raise CakeArgumentError("%s: %d strides for a shape of %d dims" % (label, len(strides), len(shape)))
        return _fill_tensor(arg, dtype, checked_address(obj.data_ptr(), label + ": data_ptr()"), shape, strides,
                            keepalive)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return _fill_tensor(arg, *_from_interface(interface, label, expected_dtype, writes), keepalive=keepalive)
    if is_int(obj):
        if obj < 0:
            raise CakeArgumentError("%s: negative device address %d" % (label, obj))
        return _fill_tensor(arg, expected_dtype, checked_address(obj, label), None, None, keepalive)
    raise CakeArgumentError("%s: expected a CUDA tensor (torch tensor, __cuda_array_interface__, DevicePtr or int "
                            "address), got %s" % (label, type(obj).__name__))


def _from_interface(interface, label, expected_dtype, writes):
    """(dtype, data, shape, strides-in-elements) from a __cuda_array_interface__ dict."""
    if not isinstance(interface, dict):
        raise CakeArgumentError("%s: __cuda_array_interface__ must be a dict, got %s"
                                % (label, type(interface).__name__))
    try:
        shape = interface["shape"]
        data = interface["data"]
        typestr = interface["typestr"]
    except KeyError as error:
        raise CakeArgumentError("%s: malformed __cuda_array_interface__ (no %s)" % (label, error)) from None
    shape = checked_ints(shape, label, "__cuda_array_interface__ shape")
    if not isinstance(data, (tuple, list)) or len(data) != 2:
        raise CakeArgumentError("%s: __cuda_array_interface__ data must be a pair (address, read_only), got %r"
                                % (label, data))
    address = 0 if data[0] is None else checked_address(data[0], label + ": __cuda_array_interface__ data[0]")
    read_only = data[1]
    if not isinstance(read_only, bool):
        raise CakeArgumentError("%s: __cuda_array_interface__ data[1] (read-only flag) must be a bool, got %r"
                                % (label, read_only))
    if read_only and writes:
        raise CakeArgumentError("%s: the array is read-only (its __cuda_array_interface__ says so) but the kernel "
                                "may write it (its manifest does not declare this tensor \"access\": \"read\")"
                                % label)
    if interface.get("mask") is not None:
        raise CakeArgumentError("%s: masked arrays are not supported" % label)
    try:
        dtype = _dtypes.typestr_to_dtype(typestr, expected_dtype)
    except ValueError as error:
        raise CakeArgumentError("%s: %s" % (label, error)) from None
    itemsize = _dtypes.SIZES[dtype]
    strides = interface.get("strides")
    if strides is not None:
        strides = checked_ints(strides, label, "__cuda_array_interface__ strides")
        if len(strides) != len(shape):
            raise CakeArgumentError("%s: __cuda_array_interface__ has %d strides for a shape of %d dims"
                                    % (label, len(strides), len(shape)))
        element_strides = []
        for stride in strides:
            if stride % itemsize:
                raise CakeArgumentError("%s: stride of %d bytes is not a multiple of the element size %d"
                                        % (label, stride, itemsize))
            element_strides.append(stride // itemsize)
        strides = tuple(element_strides)
    return dtype, address, shape, strides


def scalar_arg(value, label):
    arg = CakeArg()
    arg.kind = ARG_SCALAR
    if isinstance(value, bool):
        arg.dtype, arg.i = _dtypes.PRED, int(value)
    elif is_int(value):
        value = int(value)
        if not INT64_MIN <= value <= INT64_MAX:
            raise CakeArgumentError("%s: integer %d does not fit in 64 bits" % (label, value))
        arg.dtype, arg.i = _dtypes.I64, value
    elif isinstance(value, numbers.Real):
        try:
            arg.dtype, arg.f = _dtypes.F64, float(value)
        except Exception as error:  # noqa: BLE001 - a hostile number may raise anything
            raise CakeArgumentError("%s: converting %s to float raised %s: %s"
                                    % (label, type(value).__name__, type(error).__name__, error)) from error
    else:
        raise CakeArgumentError("%s: expected a number, got %s" % (label, type(value).__name__))
    return arg


def num_sms_value(num_sms):
    """The cake_launch_options.num_sms for Kernel(..., num_sms=): None asks the device (0); else a positive int."""
    if num_sms is None:
        return 0
    return checked_int(num_sms, "num_sms", 1, INT64_MAX, "a positive int (or None to ask the device)")


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


def interface_stream(value, label):
    """The CUstream named by a __cuda_array_interface__ v3 "stream" entry: 1 is the legacy default stream
    (CU_STREAM_LEGACY), 2 the per-thread default stream (CU_STREAM_PER_THREAD), anything else a stream
    handle; 0 is refused (the protocol forbids it as ambiguous)."""
    value = checked_int(value, label, 0, UINT64_MAX, "a stream handle")
    if value == 0:
        raise CakeArgumentError("%s is 0, which the protocol does not allow (1: legacy default stream, 2: "
                                "per-thread default stream)" % label)
    return value


def stream_handle(stream, args):
    """The CUstream to launch on: an int, an object with .cuda_stream (torch) or .ptr (cupy), or None:
    then torch's current stream on the device of the first torch tensor argument, else the stream named by
    the first argument whose __cuda_array_interface__ has a "stream" (v3), else the legacy default stream.
    A handle is an int in 0..2^64-1 (-1 is not a stream)."""
    if stream is None:
        for arg in args:
            if is_torch_tensor(arg):
                torch = sys.modules["torch"]
                return checked_address(torch.cuda.current_stream(arg.device).cuda_stream, "stream")
        for index, arg in enumerate(args):
            try:
                interface = None if is_int(arg) else getattr(arg, "__cuda_array_interface__", None)
            except Exception as error:  # noqa: BLE001 - a hostile object may raise anything
                raise CakeArgumentError("argument %d: reading __cuda_array_interface__ raised %s: %s"
                                        % (index, type(error).__name__, error)) from error
            if isinstance(interface, dict) and interface.get("stream") is not None:
                return interface_stream(interface["stream"], "argument %d: __cuda_array_interface__ stream" % index)
        return None
    if isinstance(stream, bool):
        raise CakeArgumentError("stream: expected an int handle or a stream object, got bool")
    if is_int(stream):
        return checked_int(stream, "stream", 0, UINT64_MAX, "a stream handle")
    for attribute in ("cuda_stream", "ptr", "handle"):
        try:
            handle = getattr(stream, attribute, None)
        except Exception as error:  # noqa: BLE001 - a hostile object may raise anything
            raise CakeArgumentError("stream: reading .%s raised %s: %s" % (attribute, type(error).__name__, error)) \
                from error
        if handle is not None:
            return checked_int(handle, "stream.%s" % attribute, 0, UINT64_MAX, "a stream handle")
    raise CakeArgumentError("stream: expected an int handle or a stream object, got %s" % type(stream).__name__)
