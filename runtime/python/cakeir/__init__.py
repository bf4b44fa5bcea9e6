"""CAKE runtime for Python: load a cubin compiled by cakec and launch its kernels.

    import cake, torch
    gemm = cake.load("gemm.cubin")          # reads gemm.cubin and its manifest gemm.cubin.json
    gemm(a, b, c, alpha=1.0)                # the only kernel of the module; or gemm.kernels["gemm"](...)

Arguments follow the kernel's declared parameters, positionally or by name.  Tensors are torch tensors,
objects with __cuda_array_interface__, DevicePtr(address, shape, dtype, strides) or plain int device
addresses (then the shape comes from shape variables passed by name: kernel(pa, pb, pc, M=..., N=..., K=...)).
Keyword-only options: stream= (int handle, torch.cuda.Stream, ...; default: torch's current stream when a
torch tensor is passed, else the default stream) and num_sms= (a positive int overriding the SM count used
by `num_sms`).  Every integer is range-checked before it reaches the library (nothing wraps modulo 2^64),
and only ints are integers: a float or string dim, shape variable or num_sms is an error.

Every check (dtypes, ranks, shapes shared through shape variables, alignment, `requires` clauses, launch
limits) happens in libcake_runtime.so (found through $CAKE_RUNTIME_LIB, next to this package, or in the
source tree's build*/lib/) and fails with a CakeError subclass whose message names what is wrong.
No build step is needed for this package itself."""

import ctypes
import os

from . import _dtypes as dtypes
from ._args import DevicePtr, checked_int, num_sms_value, scalar_arg, stream_handle, tensor_arg, torch_device_of
from ._errors import (CakeArgumentError, CakeCudaError, CakeDriverUnavailable, CakeError, CakeExpressionError,
                      CakeIOError, CakeLaunchConfigError, CakeManifestError, CakeNotFoundError,
                      CakeRequirementError, error_for)
from ._lib import ARG_TENSOR, OK, CakeArg, CakeLaunchOptions, CakeLaunchPlan, CakeNamedInt, error_buffer, load_library

__all__ = [
    "load", "load_data", "Module", "Kernel", "LaunchPlan", "DevicePtr", "eval_expression", "driver_check",
    "runtime_version", "library_path", "dtypes", "CakeError", "CakeIOError", "CakeManifestError",
    "CakeNotFoundError", "CakeArgumentError", "CakeRequirementError", "CakeLaunchConfigError",
    "CakeExpressionError", "CakeDriverUnavailable", "CakeCudaError",
]


def _check(status, err):
    if status != OK:
        raise error_for(status, err.value.decode("utf-8", "replace"))


def _text(raw):
    return raw.decode("utf-8", "replace") if raw is not None else ""


def runtime_version():
    return _text(load_library().cake_runtime_version())


def library_path():
    return load_library().cake_library_path


def load(path):
    """Loads a cubin (its manifest is path + ".json") or a manifest (a path ending in .json)."""
    lib = load_library()
    try:
        encoded = os.fsencode(path)
    except TypeError as error:
        raise CakeArgumentError("cake.load: expected a path (str, bytes or os.PathLike), got %s"
                                % type(path).__name__) from error
    if b"\0" in encoded:  # C strings end at the first NUL: the library would open a different file
        raise CakeArgumentError("cake.load: the path %r contains a NUL byte" % (path,))
    handle = ctypes.c_void_p()
    err = error_buffer()
    _check(lib.cake_module_load(encoded, ctypes.byref(handle), err, len(err)), err)
    return Module(lib, handle, str(path))


def load_data(manifest_json, cubin=b""):
    """Loads a module from a manifest text and cubin bytes in memory (cubin may be empty for planning only)."""
    lib = load_library()
    if isinstance(manifest_json, str):
        manifest_json = manifest_json.encode("utf-8")
    if not isinstance(manifest_json, bytes) or not isinstance(cubin, (bytes, type(None))):
        raise CakeArgumentError("cake.load_data: expected the manifest as str or bytes and the cubin as bytes")
    handle = ctypes.c_void_p()
    err = error_buffer()
    _check(lib.cake_module_load_data(manifest_json, len(manifest_json), cubin or None, len(cubin),
                                     ctypes.byref(handle), err, len(err)), err)
    return Module(lib, handle, "<memory>")


def eval_expression(expression, **names):
    """Evaluates a manifest expression (docs/manifest.md) with integer names bound."""
    lib = load_library()
    values = [checked_int(v, "eval_expression: %s" % k) for k, v in names.items()]
    entries = (CakeNamedInt * max(len(names), 1))(*[CakeNamedInt(k.encode(), v) for k, v in zip(names, values)])
    out = ctypes.c_int64()
    err = error_buffer()
    _check(lib.cake_eval_expression(expression.encode("utf-8"), entries, len(names), ctypes.byref(out), err,
                                    len(err)), err)
    return out.value


def driver_check():
    """Opens the CUDA driver now; raises CakeDriverUnavailable with the reason when there is none."""
    lib = load_library()
    err = error_buffer()
    _check(lib.cake_driver_check(err, len(err)), err)


class Module:
    """A loaded cubin + manifest.  Kernels by name: module.kernels["gemm"], module["gemm"] or module.gemm;
    calling the module calls its kernel when it has exactly one."""

    def __init__(self, lib, handle, origin):
        self._lib = lib
        self._handle = handle
        self.origin = origin
        self.arch = _text(lib.cake_module_arch(handle))
        self.kernels = {}
        for index in range(lib.cake_module_num_kernels(handle)):
            kernel = Kernel(self, lib.cake_module_kernel_at(handle, index))
            self.kernels[kernel.name] = kernel

    def __del__(self):
        handle, lib = getattr(self, "_handle", None), getattr(self, "_lib", None)
        if handle and lib is not None and getattr(lib, "cake_module_free", None) is not None:
            lib.cake_module_free(handle)
            self._handle = None

    def __getitem__(self, name):
        try:
            return self.kernels[name]
        except KeyError:
            raise CakeNotFoundError("%s has no kernel '%s' (kernels: %s)"
                                    % (self.origin, name, ", ".join(self.kernels))) from None

    def __getattr__(self, name):
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError(name)

    def __call__(self, *args, **kwargs):
        if len(self.kernels) != 1:
            raise CakeArgumentError("%s has %d kernels (%s); call one by name"
                                    % (self.origin, len(self.kernels), ", ".join(self.kernels)))
        return next(iter(self.kernels.values()))(*args, **kwargs)

    def __repr__(self):
        return "<cake.Module %s arch=%s kernels=%s>" % (self.origin, self.arch, list(self.kernels))


class LaunchPlan:
    """What a launch would do (from Kernel.plan): grid, block, cluster, dynamic shared memory."""

    def __init__(self, raw):
        self.grid = tuple(raw.grid)
        self.block = tuple(raw.block)
        self.cluster = tuple(raw.cluster)
        self.dynamic_smem_bytes = raw.dynamic_smem_bytes
        self.num_abi_params = raw.num_abi_params
        self.num_tensor_maps = raw.num_tensor_maps

    def __repr__(self):
        return "LaunchPlan(grid=%r, block=%r, cluster=%r, dynamic_smem_bytes=%d)" % (
            self.grid, self.block, self.cluster, self.dynamic_smem_bytes)


class Kernel:
    """One kernel of a module; call it to launch."""

    def __init__(self, module, handle):
        lib = module._lib
        self._module = module  # keeps the module (and so this handle) alive
        self._lib = lib
        self._handle = handle
        self.name = _text(lib.cake_kernel_name(handle))
        self.entry = _text(lib.cake_kernel_entry(handle))
        count = lib.cake_kernel_num_params(handle)
        self.param_names = [_text(lib.cake_kernel_param_name(handle, i)) for i in range(count)]
        self.param_kinds = ["tensor" if lib.cake_kernel_param_kind(handle, i) == ARG_TENSOR else "scalar"
                            for i in range(count)]
        self.param_dtypes = [lib.cake_kernel_param_dtype(handle, i) for i in range(count)]
        self.param_ranks = [lib.cake_kernel_param_rank(handle, i) for i in range(count)]
        self.param_writes = [bool(lib.cake_kernel_param_writes(handle, i)) for i in range(count)]
        self.shape_vars = [_text(lib.cake_kernel_shape_var_name(handle, i))
                           for i in range(lib.cake_kernel_num_shape_vars(handle))]

    def signature(self):
        """'gemm(A: bf16[2], B: bf16[2], C: f32[2], alpha: f32)' (tensor ranks in brackets)."""
        parts = []
        for name, kind, dtype, rank in zip(self.param_names, self.param_kinds, self.param_dtypes, self.param_ranks):
            parts.append("%s: %s%s" % (name, dtypes.name(dtype), "[%d]" % rank if kind == "tensor" else ""))
        return "%s(%s)" % (self.name, ", ".join(parts))

    def __repr__(self):
        return "<cake.Kernel %s>" % self.signature()

    def _prepare(self, args, kwargs, num_sms):
        """(cake_arg array, argument values, options without the stream, keepalive) for a call."""
        values = list(args)
        if len(values) > len(self.param_names):
            raise CakeArgumentError("kernel %s takes %d arguments (%s), got %d"
                                    % (self.name, len(self.param_names), ", ".join(self.param_names), len(values)))
        values += [_MISSING] * (len(self.param_names) - len(values))
        shape_vars = {}
        for key, value in kwargs.items():
            if key in self.param_names:
                index = self.param_names.index(key)
                if values[index] is not _MISSING:
                    raise CakeArgumentError("kernel %s: argument %s given twice" % (self.name, key))
                values[index] = value
            elif key in self.shape_vars:
                shape_vars[key] = value
            else:
                raise CakeArgumentError("kernel %s has no parameter or shape variable '%s' (parameters: %s; shape "
                                        "variables: %s)" % (self.name, key, ", ".join(self.param_names),
                                                            ", ".join(self.shape_vars) or "none"))
        missing = [name for name, value in zip(self.param_names, values) if value is _MISSING]
        if missing:
            raise CakeArgumentError("kernel %s: missing argument%s %s" % (
                self.name, "s" if len(missing) > 1 else "", ", ".join(missing)))
        keepalive = []
        array = (CakeArg * max(len(values), 1))()
        for i, value in enumerate(values):
            label = "argument %d (%s)" % (i, self.param_names[i])
            if self.param_kinds[i] == "tensor":
                array[i] = tensor_arg(value, label, self.param_dtypes[i], keepalive, self.param_writes[i])
            else:
                array[i] = scalar_arg(value, label)
        named = (CakeNamedInt * max(len(shape_vars), 1))()
        for i, (key, value) in enumerate(shape_vars.items()):
            value = checked_int(value, "kernel %s: shape variable %s" % (self.name, key))
            named[i] = CakeNamedInt(key.encode(), value)
        options = CakeLaunchOptions()
        options.struct_size = ctypes.sizeof(CakeLaunchOptions)
        options.shape_vars = ctypes.cast(named, ctypes.POINTER(CakeNamedInt))
        options.num_shape_vars = len(shape_vars)
        options.num_sms = num_sms_value(num_sms)
        keepalive.append(named)
        return array, values, options, keepalive

    def __call__(self, *args, stream=None, num_sms=None, **kwargs):
        array, values, options, keepalive = self._prepare(args, kwargs, num_sms)
        options.stream = stream_handle(stream, values)
        err = error_buffer()
        with torch_device_of(values):  # launch in the context of the tensors' device
            status = self._lib.cake_launch(self._handle, array, len(values), ctypes.byref(options), err, len(err))
        del keepalive
        _check(status, err)

    def plan(self, *args, num_sms=None, **kwargs):
        """Checks the arguments and returns the LaunchPlan without touching the GPU."""
        array, values, options, keepalive = self._prepare(args, kwargs, num_sms)
        count = len(values)
        raw = CakeLaunchPlan()
        err = error_buffer()
        _check(self._lib.cake_kernel_plan(self._handle, array, count, ctypes.byref(options), ctypes.byref(raw), err,
                                          len(err)), err)
        del keepalive
        return LaunchPlan(raw)


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()
