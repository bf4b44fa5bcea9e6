"""CAKE for Python (distribution and import name `cakeir`): compile CAKE IR with cakec and launch its kernels.

    import cakeir, torch
    gemm = cakeir.load("gemm.cubin")        # reads gemm.cubin and its manifest gemm.cubin.json
    gemm(a, b, c, alpha=1.0)                # the only kernel of the module; or gemm.kernels["gemm"](...)
    add = cakeir.compile("samples/vector_add.cake", defines={"BLOCK": 256})   # cakec + on-disk cache

Arguments follow the kernel's declared parameters, positionally or by name.  Tensors are torch tensors,
objects with __cuda_array_interface__, DevicePtr(address, shape, dtype, strides) or plain int device
addresses (then the shape comes from shape variables passed by name: kernel(pa, pb, pc, M=..., N=..., K=...)).
Keyword-only options: stream= (int handle, torch.cuda.Stream, ...; default: torch's current stream when a
torch tensor is passed, else the default stream) and num_sms= (a positive int overriding the SM count used
by `num_sms`).  Every integer is range-checked before it reaches the library (nothing wraps modulo 2^64),
and only ints are integers: a float or string dim, shape variable or num_sms is an error.

Every check (dtypes, ranks, shapes shared through shape variables, alignment, `requires` clauses, launch
limits) happens in libcake_runtime.so (found through $CAKE_RUNTIME_LIB, inside this package's lib/ where the
wheel puts it, next to this package, or in the source tree's build*/lib/) and fails with a CakeError subclass
whose message names what is wrong.  `python -m cakeir ARGS` runs cakec; cakeir.torch registers kernels as
torch.library custom ops."""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _dtypes as dtypes
from . import _native
from ._args import DevicePtr, checked_address, checked_int, num_sms_value, scalar_arg, stream_handle, tensor_arg, torch_device_of
from ._errors import (CakeArgumentError, CakeCudaError, CakeDriverUnavailable, CakeError, CakeExpressionError,
                      CakeIOError, CakeLaunchConfigError, CakeManifestError, CakeNotFoundError,
                      CakeRequirementError, error_for)
from ._lib import (ARG_TENSOR, OK, CakeArg, CakeLaunchOptions, CakeLaunchPlan, CakeNamedInt, error_buffer,
                   thread_error_buffer)
from ._lib import load_library as _runtime  # the libcake_runtime binding (cakeir.load_library loads a kernel library)
from ._compile import CakeCompileError, compile, default_cache_dir

__all__ = [
    "load", "load_data", "compile", "default_cache_dir", "CakeCompileError", "Module", "Kernel", "LaunchPlan", "DevicePtr", "eval_expression", "driver_check",
    "runtime_version", "library_path", "dtypes", "CakeError", "CakeIOError", "CakeManifestError",
    "CakeNotFoundError", "CakeArgumentError", "CakeRequirementError", "CakeLaunchConfigError",
    "CakeExpressionError", "CakeDriverUnavailable", "CakeCudaError", "load_library", "Library", "launch_path",
    "launch_path_reason",
]


def _check(status, err):
    if status != OK:
        raise error_for(status, err.value.decode("utf-8", "replace"))


def _text(raw):
    return raw.decode("utf-8", "replace") if raw is not None else ""


PathLike = Union[str, bytes, "os.PathLike[str]"]


def runtime_version() -> str:
    return _text(_runtime().cake_runtime_version())


def library_path() -> str:
    return _runtime().cake_library_path


def launch_path() -> str:
    """"native" when prepared launches go through the extension module cakeir._prepared_call, else "python"
    (the extension is absent, does not load, or CAKE_NO_NATIVE=1 is set; launch_path_reason() says which).
    Loads the runtime library to find out."""
    return "native" if _native.module(library_path()) is not None else "python"


def launch_path_reason() -> str:
    """Why launch_path() is what it is: "loaded from PATH", "CAKE_NO_NATIVE is set", or where it was looked for."""
    launch_path()
    return _native.reason()


def load(path: PathLike) -> "Module":
    """Loads a cubin (its manifest is path + ".json") or a manifest (a path ending in .json)."""
    lib = _runtime()
    try:
        encoded = os.fsencode(path)
    except TypeError as error:
        raise CakeArgumentError("cakeir.load: expected a path (str, bytes or os.PathLike), got %s"
                                % type(path).__name__) from error
    if b"\0" in encoded:  # C strings end at the first NUL: the library would open a different file
        raise CakeArgumentError("cakeir.load: the path %r contains a NUL byte" % (path,))
    handle = ctypes.c_void_p()
    err = error_buffer()
    _check(lib.cake_module_load(encoded, ctypes.byref(handle), err, len(err)), err)
    return Module(lib, handle, str(path))


def load_data(manifest_json: Union[str, bytes], cubin: Optional[bytes] = b"") -> "Module":
    """Loads a module from a manifest text and cubin bytes in memory (cubin may be empty for planning only)."""
    lib = _runtime()
    if isinstance(manifest_json, str):
        manifest_json = manifest_json.encode("utf-8")
    if not isinstance(manifest_json, bytes) or not isinstance(cubin, (bytes, type(None))):
        raise CakeArgumentError("cakeir.load_data: expected the manifest as str or bytes and the cubin as bytes")
    handle = ctypes.c_void_p()
    err = error_buffer()
    _check(lib.cake_module_load_data(manifest_json, len(manifest_json), cubin or None, len(cubin or b""),
                                     ctypes.byref(handle), err, len(err)), err)
    return Module(lib, handle, "<memory>")


def eval_expression(expression: str, **names: int) -> int:
    """Evaluates a manifest expression (docs/manifest.md) with integer names bound."""
    lib = _runtime()
    values = [checked_int(v, "eval_expression: %s" % k) for k, v in names.items()]
    entries = (CakeNamedInt * max(len(names), 1))(*[CakeNamedInt(k.encode(), v) for k, v in zip(names, values)])
    out = ctypes.c_int64()
    err = error_buffer()
    _check(lib.cake_eval_expression(expression.encode("utf-8"), entries, len(names), ctypes.byref(out), err,
                                    len(err)), err)
    return out.value


def driver_check() -> None:
    """Opens the CUDA driver now; raises CakeDriverUnavailable with the reason when there is none."""
    lib = _runtime()
    err = error_buffer()
    _check(lib.cake_driver_check(err, len(err)), err)


class Module:
    """A loaded cubin + manifest.  Kernels by name: module.kernels["gemm"], module["gemm"] or module.gemm;
    calling the module calls its kernel when it has exactly one."""

    cache_entry: Optional[str] = None  # the compile cache's folder of this module (cakeir.compile)
    from_cache: bool = False           # cakeir.compile found it in the cache (no cakec ran)

    def __init__(self, lib: Any, handle: ctypes.c_void_p, origin: str) -> None:
        self._lib = lib
        self._handle = handle
        self.origin = origin
        self.arch: str = _text(lib.cake_module_arch(handle))
        self.kernels: Dict[str, Kernel] = {}
        for index in range(lib.cake_module_num_kernels(handle)):
            kernel = _kernel_class(lib)(self, lib.cake_module_kernel_at(handle, index))
            self.kernels[kernel.name] = kernel

    def __del__(self):
        handle, lib = getattr(self, "_handle", None), getattr(self, "_lib", None)
        if handle and lib is not None and getattr(lib, "cake_module_free", None) is not None:
            lib.cake_module_free(handle)
            self._handle = None

    def __getitem__(self, name: str) -> "Kernel":
        try:
            return self.kernels[name]
        except KeyError:
            raise CakeNotFoundError("%s has no kernel '%s' (kernels: %s)"
                                    % (self.origin, name, ", ".join(self.kernels))) from None

    def __getattr__(self, name: str) -> "Kernel":
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError(name)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        if len(self.kernels) != 1:
            raise CakeArgumentError("%s has %d kernels (%s); call one by name"
                                    % (self.origin, len(self.kernels), ", ".join(self.kernels)))
        return next(iter(self.kernels.values()))(*args, **kwargs)

    def __repr__(self):
        return "<cakeir.Module %s arch=%s kernels=%s>" % (self.origin, self.arch, list(self.kernels))


class LaunchPlan:
    """What a launch would do (from Kernel.plan): grid, block, cluster, dynamic shared memory."""

    def __init__(self, raw: CakeLaunchPlan) -> None:
        self.grid: Tuple[int, int, int] = tuple(raw.grid)  # type: ignore[assignment]
        self.block: Tuple[int, int, int] = tuple(raw.block)  # type: ignore[assignment]
        self.cluster: Tuple[int, int, int] = tuple(raw.cluster)  # type: ignore[assignment]
        self.dynamic_smem_bytes: int = raw.dynamic_smem_bytes
        self.num_abi_params: int = raw.num_abi_params
        self.num_tensor_maps: int = raw.num_tensor_maps

    def __repr__(self):
        return "LaunchPlan(grid=%r, block=%r, cluster=%r, dynamic_smem_bytes=%d)" % (
            self.grid, self.block, self.cluster, self.dynamic_smem_bytes)


class Kernel:
    """One kernel of a module; call it to launch."""

    def __init__(self, module: Module, handle: Any) -> None:
        lib = module._lib
        self._module = module  # keeps the module (and so this handle) alive
        self._lib = lib
        self._handle = handle
        self.name: str = _text(lib.cake_kernel_name(handle))
        self.entry: str = _text(lib.cake_kernel_entry(handle))
        count = lib.cake_kernel_num_params(handle)
        self.param_names: List[str] = [_text(lib.cake_kernel_param_name(handle, i)) for i in range(count)]
        self.param_kinds: List[str] = ["tensor" if lib.cake_kernel_param_kind(handle, i) == ARG_TENSOR else "scalar"
                            for i in range(count)]
        self.param_dtypes: List[int] = [lib.cake_kernel_param_dtype(handle, i) for i in range(count)]
        self.param_ranks: List[int] = [lib.cake_kernel_param_rank(handle, i) for i in range(count)]
        self.param_writes: List[bool] = [bool(lib.cake_kernel_param_writes(handle, i)) for i in range(count)]
        self.shape_vars: List[str] = [_text(lib.cake_kernel_shape_var_name(handle, i))
                           for i in range(lib.cake_kernel_num_shape_vars(handle))]
        self._tensor_params = [kind == "tensor" for kind in self.param_kinds]
        self._address_array = ctypes.c_uint64 * max(count, 1)
        self._prepared: Dict[Any, _PreparedLaunch] = {}
        self._prepared_calls = 0  # launches made by the Python prepared path
        self._general_calls = 0   # calls that took the general path
        self._native_call: Any = None  # cakeir._prepared_call.PreparedCall: the native prepared path
        self._native_launches = 0  # launches of native paths dropped by `native_launch = False`
        self.native_launch = True

    @property
    def native_launch(self) -> bool:
        """True while prepared launches of this kernel go through the native extension (cakeir.launch_path());
        set it to False to send them through the Python path (set it to True to go back when it is loaded)."""
        return self._native_call is not None

    @native_launch.setter
    def native_launch(self, enabled: bool) -> None:
        if self._native_call is not None:
            self._native_launches += self._native_call.launches
        self._native_call = None
        if enabled:
            native = _native.module(getattr(self._lib, "cake_library_path", None))
            if native is not None and len(self._tensor_params) <= _NATIVE_MAX_PARAMS:
                address = ctypes.cast(self._lib.cake_launch_prepared, ctypes.c_void_p).value
                self._native_call = native.PreparedCall(address, tuple(self._tensor_params), DevicePtr, error_for)
        bind = getattr(self, "_bind", None)  # a native kernel (_kernel_class): its __call__ is in C
        if bind is not None:
            bind(self._native_call, Kernel.__call__, Kernel._call_python)

    def launch_counts(self) -> Dict[str, int]:
        """Calls of this kernel so far by the path that took them: "native" (the extension's prepared launch),
        "prepared" (the Python prepared launch), "general" (every check on each call).  A call that failed is
        counted under the path that reported the failure, except on the native path (launches made only)."""
        native = self._native_launches + (self._native_call.launches if self._native_call is not None else 0)
        return {"native": native, "prepared": self._prepared_calls, "general": self._general_calls}

    def signature(self) -> str:
        """'gemm(A: bf16[2], B: bf16[2], C: f32[2], alpha: f32)' (tensor ranks in brackets)."""
        parts = []
        for name, kind, dtype, rank in zip(self.param_names, self.param_kinds, self.param_dtypes, self.param_ranks):
            parts.append("%s: %s%s" % (name, dtypes.name(dtype), "[%d]" % rank if kind == "tensor" else ""))
        return "%s(%s)" % (self.name, ", ".join(parts))

    def __repr__(self):
        return "<cakeir.Kernel %s>" % self.signature()

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

    def __call__(self, *args: Any, stream: Any = None, num_sms: Optional[int] = None, **kwargs: Any) -> None:
        if not kwargs and num_sms is None:
            native = self._native_call
            if native is not None and native(args, stream):
                return
        self._call_python(args, stream, num_sms, kwargs)

    def _call_python(self, args: Tuple[Any, ...], stream: Any, num_sms: Optional[int], kwargs: Dict[str, Any]) -> None:
        """The paths after the native one: the Python prepared path, else the general path."""
        if not kwargs and num_sms is None and self._call_prepared(args, stream):
            return
        self._general_calls += 1
        array, values, options, keepalive = self._prepare(args, kwargs, num_sms)
        options.stream = stream_handle(stream, values)
        err = error_buffer()
        with torch_device_of(values):  # launch in the context of the tensors' device
            status = self._lib.cake_launch(self._handle, array, len(values), ctypes.byref(options), err, len(err))
        del keepalive
        _check(status, err)

    def _call_prepared(self, args: Tuple[Any, ...], stream: Any) -> bool:
        """The prepared-launch path for torch tensors, DevicePtrs with a shape and Python scalars passed
        positionally: the launch is bound once per (dtype, shape, strides, device) of every tensor and value
        of every scalar, then each call passes only the addresses (cake_launch_prepared).  False when the
        arguments are of another kind (the general path then handles them)."""
        if len(args) != len(self._tensor_params):
            return False
        torch: Any = sys.modules.get("torch")
        tensor_type: Any = getattr(torch, "Tensor", None)
        if not isinstance(tensor_type, type):
            tensor_type = DevicePtr
        get_device = getattr(tensor_type, "get_device", None)  # an int: cheaper than .device
        key: List[Any] = []
        addresses: List[int] = []
        device: Optional[int] = None
        for value, is_tensor in zip(args, self._tensor_params):
            if is_tensor:
                if type(value) is DevicePtr:
                    if value.shape is None:
                        return False
                    key.append((DevicePtr, value.shape, value.dtype, value.strides))
                    addresses.append(value.ptr)
                    continue
                if not isinstance(value, tensor_type):
                    return False
                index = value.get_device() if get_device is not None else getattr(value.device, "index", None)
                if type(index) is not int or index < 0:  # -1: not a CUDA tensor (the general path says so)
                    return False
                if device is None:
                    device = index
                key.append((value.dtype, value.shape, value.stride(), index))
                addresses.append(value.data_ptr())
            else:
                kind = type(value)
                if kind is not int and kind is not float and kind is not bool:
                    return False
                key.append((kind, value.hex() if kind is float else value))  # hex: -0.0 is not 0.0
                addresses.append(0)
        key_tuple = tuple(key)
        prepared = self._prepared.get(key_tuple)
        hooks = _torch_hooks(torch) if device is not None else _NO_HOOKS
        guard = device is not None and (hooks[1] is None or hooks[1]() != device)
        self._prepared_calls += 1
        if prepared is None or guard:
            # the first call with this signature, or the tensors' device is not the current one (then under
            # torch's device guard, which makes that device's primary context current)
            with torch.cuda.device(device) if guard else _NO_GUARD:
                if prepared is None:
                    prepared = self._prepare_launch(args, key_tuple)
                status, err = self._launch_prepared(prepared, addresses, stream, args, torch, device, hooks)
        else:
            status, err = self._launch_prepared(prepared, addresses, stream, args, torch, device, hooks)
        if self._native_call is not None and not guard and prepared.handle:
            self._native_call.remember(args, prepared.handle.value or 0, prepared)  # later calls: the native path
        if status != OK:
            raise error_for(status, err.value.decode("utf-8", "replace"))
        return True

    def _launch_prepared(self, prepared: "_PreparedLaunch", addresses: List[int], stream: Any, args: Tuple[Any, ...],
                         torch: Any, device: Optional[int], hooks: Tuple[Any, Any]) -> Tuple[int, Any]:
        if stream is not None:
            handle = stream_handle(stream, args)
        elif device is None:
            handle = None
        elif hooks[0] is not None:
            handle = hooks[0](device)
        else:
            handle = checked_address(torch.cuda.current_stream(device).cuda_stream, "stream")
        err = thread_error_buffer()
        return self._lib.cake_launch_prepared(prepared.handle, self._address_array(*addresses), len(addresses),
                                              handle, err, len(err)), err

    def _prepare_launch(self, args: Tuple[Any, ...], key: Any) -> "_PreparedLaunch":
        array, values, options, keepalive = self._prepare(args, {}, None)
        out = ctypes.c_void_p()
        err = error_buffer()
        status = self._lib.cake_launch_prepare(self._handle, array, len(values), ctypes.byref(options),
                                               ctypes.byref(out), err, len(err))
        del keepalive
        _check(status, err)
        if len(self._prepared) >= _MAX_PREPARED:
            self._prepared.clear()
        prepared = self._prepared[key] = _PreparedLaunch(self._lib, out)
        return prepared

    def tensor_map_encodes(self) -> int:
        """TMA descriptors encoded so far by this kernel's prepared launches (a test and benchmark aid)."""
        return sum(self._lib.cake_prepared_launch_tensor_map_encodes(p.handle) for p in self._prepared.values())

    def plan(self, *args: Any, num_sms: Optional[int] = None, **kwargs: Any) -> LaunchPlan:
        """Checks the arguments and returns the LaunchPlan without touching the GPU."""
        array, values, options, keepalive = self._prepare(args, kwargs, num_sms)
        count = len(values)
        raw = CakeLaunchPlan()
        err = error_buffer()
        _check(self._lib.cake_kernel_plan(self._handle, array, count, ctypes.byref(options), ctypes.byref(raw), err,
                                          len(err)), err)
        del keepalive
        return LaunchPlan(raw)

    def occupancy(self, *args: Any, num_sms: Optional[int] = None, **kwargs: Any) -> int:
        """How many blocks of this kernel, launched with these arguments, fit on one SM of the current device
        at once (the driver's occupancy calculator: block size, registers, dynamic shared memory; clusters not
        considered).  Checks the arguments as a launch does and loads the module; launches nothing."""
        array, values, options, keepalive = self._prepare(args, kwargs, num_sms)
        blocks = ctypes.c_int(0)
        err = error_buffer()
        _check(self._lib.cake_kernel_occupancy(self._handle, array, len(values), ctypes.byref(options),
                                               ctypes.byref(blocks), err, len(err)), err)
        del keepalive
        return blocks.value


_native_kernel_classes: Dict[int, Tuple[Any, type]] = {}


def _kernel_class(lib: Any) -> type:
    """The class of the kernels of a module loaded through `lib`: where the native extension loads, a subclass
    of its KernelCall (a __call__ in C that launches through the kernel's PreparedCall and hands everything else
    to Kernel.__call__ / Kernel._call_python) and of Kernel; else Kernel."""
    native = _native.module(getattr(lib, "cake_library_path", None))
    base = getattr(native, "KernelCall", None)
    if base is None:
        return Kernel
    cached = _native_kernel_classes.get(id(native))
    if cached is not None and cached[0] is native:
        return cached[1]
    cls = type("Kernel", (base, Kernel), {"__module__": __name__, "__doc__": Kernel.__doc__,
                                          "__qualname__": "Kernel"})
    _native_kernel_classes[id(native)] = (native, cls)
    return cls


_MAX_PREPARED = 64  # prepared launches kept per kernel (distinct shape signatures); all dropped when full
_NATIVE_MAX_PARAMS = 64  # kMaxParams of runtime/python_extension/prepared_call.c


class _PreparedLaunch:
    """Owns one cake_prepared_launch."""

    __slots__ = ("lib", "handle")

    def __init__(self, lib: Any, handle: ctypes.c_void_p) -> None:
        self.lib = lib
        self.handle: Optional[ctypes.c_void_p] = handle

    def __del__(self) -> None:
        if self.handle and getattr(self.lib, "cake_prepared_launch_free", None) is not None:
            self.lib.cake_prepared_launch_free(self.handle)
            self.handle = None


_NO_HOOKS: Tuple[Any, Any] = (None, None)
_hooks_of: Dict[int, Tuple[Any, Tuple[Any, Any]]] = {}


def _torch_hooks(torch: Any) -> Tuple[Any, Any]:
    """(raw current-stream query, current-device query) of this torch module: torch._C's functions when it has
    them (the fast way to ask), else None (then torch.cuda.current_stream and the device guard are used)."""
    cached = _hooks_of.get(id(torch))
    if cached is not None and cached[0] is torch:
        return cached[1]
    c = getattr(torch, "_C", None)
    hooks = (getattr(c, "_cuda_getCurrentRawStream", None), getattr(c, "_cuda_getDevice", None))
    _hooks_of[id(torch)] = (torch, hooks)
    return hooks


class _NoGuard:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


_NO_GUARD = _NoGuard()


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()


from .library import Library, load_library  # noqa: E402  (needs Kernel above)
