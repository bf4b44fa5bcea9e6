"""Kernel libraries: the variants of one operation with a dispatch table that picks one by shape
(docs/library.md).  `cakec library build spec.json -o DIR` writes the folder; this module loads it.

    lib = cakeir.load_library("build/gemm_bf16")           # DIR or DIR/library.json
    lib(a, b, c)                                           # picks the variant for a's and b's shape, launches it
    lib.select(M=4096, N=4096, K=4096)                     # the Kernel it would launch
    print(lib.explain(M=16, N=4096, K=4096))               # which guard matched, why the earlier ones did not

The table is walked by libcake_runtime (cake_library_select: guards compiled when the library is loaded, a
few nanoseconds per entry).  From Python, each distinct shape is looked up once and remembered (a dict keyed by
the tuple of shape-variable values), so a repeated shape costs the tuple and one dict lookup before the chosen
kernel's own (prepared) launch path.
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Dict, List, Optional, Tuple

from ._dtypes import TORCH_NAMES
from ._errors import CakeArgumentError, CakeRequirementError, error_for
from ._lib import OK, error_buffer
from ._lib import load_library as _runtime

_MEMO_LIMIT = 4096   # remembered shapes per library (all dropped when a new one would pass it)


def _shape_of(value: Any) -> Optional[Tuple[int, ...]]:
    """The dims of a tensor-like argument, or None."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return tuple(shape)
    cai = getattr(value, "__cuda_array_interface__", None)
    if isinstance(cai, dict) and "shape" in cai:
        return tuple(cai["shape"])
    return None


class Library:
    """A loaded kernel library.  Calling it launches the variant its dispatch table picks for the arguments'
    shape; the arguments are those of every variant (they share one signature), plus, by name, any shape
    variable of the library that no argument carries (e.g. the k of a KNN)."""

    def __init__(self, path: str, arch: Optional[str] = None) -> None:
        from . import Kernel  # the package's Kernel class (a cycle at import time otherwise)

        self._lib = lib = _runtime()
        err = error_buffer()
        handle = ctypes.c_void_p()
        status = lib.cake_library_load(os.fsencode(path), arch.encode() if arch else None, ctypes.byref(handle),
                                       err, len(err))
        if status != OK:
            raise error_for(status, err.value.decode("utf-8", "replace"))
        self._handle: Optional[ctypes.c_void_p] = handle
        self.origin = path
        self.name: str = lib.cake_library_name(handle).decode()
        self.shape_vars: List[str] = [lib.cake_library_shape_var_name(handle, i).decode()
                                      for i in range(lib.cake_library_num_shape_vars(handle))]
        self.variants: Dict[str, Any] = {}   # Kernel, or KernelSequence for a variant of several kernels
        self._variant_list: List[Any] = []
        for i in range(lib.cake_library_num_variants(handle)):
            count = lib.cake_library_variant_num_kernels(handle, i)
            if count == 1 and lib.cake_library_variant_num_workspace(handle, i) == 0:
                kernel: Any = Kernel(self, lib.cake_library_variant_kernel(handle, i))   # type: ignore[arg-type]
            else:
                kernel = KernelSequence(self, i, [
                    (Kernel(self, lib.cake_library_variant_kernel_at(handle, i, k)),   # type: ignore[arg-type]
                     [lib.cake_library_variant_kernel_arg(handle, i, k, p) for p in range(
                         lib.cake_kernel_num_params(lib.cake_library_variant_kernel_at(handle, i, k)))])
                    for k in range(count)])
            self.variants[lib.cake_library_variant_name(handle, i).decode()] = kernel
            self._variant_list.append(kernel)
        self.entries: List[Tuple[str, str]] = []   # (guard, variant name); the fallback's guard is "true"
        names = list(self.variants)
        for i in range(lib.cake_library_num_entries(handle)):
            self.entries.append((lib.cake_library_entry_guard(handle, i).decode(),
                                 names[lib.cake_library_entry_variant(handle, i)]))
        self._entry_kernels = [self.variants[v] for _, v in self.entries]
        first = self._variant_list[0]
        self.param_names: List[str] = list(first.param_names)
        # Where each shape variable is read: (param index, dim) or None (given by name).
        self._sources: List[Optional[Tuple[int, int]]] = []
        with open(self._manifest_path(path), encoding="utf-8") as f:
            doc = json.load(f)
        self._folder = os.path.dirname(os.path.abspath(self._manifest_path(path)))
        self._variant_docs = {v["name"]: v for v in doc["variants"]}
        for var in doc["shape_vars"]:
            src = var.get("from")
            self._sources.append((src["param"], src["dim"]) if src else None)
        self._named_only = [name for name, src in zip(self.shape_vars, self._sources) if src is None]
        # The fast path of a call with every argument positional: the key read by one generated function
        # (`lambda a: (a[0].shape[0], a[1].shape[0], a[0].shape[1])`), no loop, no name lookups.
        # Named-only variables come from the keyword arguments (`kw["k"]`).
        self._fast_key = None
        if self._sources and all(n.isidentifier() for n in self._named_only):
            reads = ", ".join("a[%d].shape[%d]" % src if src is not None else "kw[%r]" % name
                              for name, src in zip(self.shape_vars, self._sources))
            self._fast_key = eval("lambda a, kw: (%s,)" % reads)  # noqa: S307 - integers and identifiers only
        self._named_set = set(self._named_only)
        self._values = (ctypes.c_int64 * max(len(self.shape_vars), 1))()
        self._memo: Dict[Tuple[int, ...], int] = {}
        self._target_fixed = arch is not None

    @staticmethod
    def _manifest_path(path: str) -> str:
        return path if path.endswith(".json") else os.path.join(path, "library.json")

    def __del__(self) -> None:
        handle, lib = getattr(self, "_handle", None), getattr(self, "_lib", None)
        if handle and lib is not None and getattr(lib, "cake_library_free", None) is not None:
            lib.cake_library_free(handle)
            self._handle = None

    def __repr__(self) -> str:
        return "<cakeir.Library %s shape_vars=%s variants=%s>" % (self.name, self.shape_vars, list(self.variants))

    def ct_params(self, variant: str) -> Dict[str, Any]:
        """The compile-time parameters of a variant's kernel (from its manifest), e.g. {"BN": 128, "T": "bf16"}:
        what a caller needs to size work buffers whose padding depends on the variant."""
        doc = self._variant_docs[variant]
        with open(os.path.join(self._folder, doc["manifest"]), encoding="utf-8") as f:
            manifest = json.load(f)
        for kernel in manifest["kernels"]:
            if kernel["name"] == doc["kernel"]:
                return dict(kernel.get("ct_params", {}))
        return {}

    def variant_cubin(self, variant: str) -> str:
        """The path of a variant's cubin in the library folder (its manifest is the same path + ".json"): for
        callers that also launch the other kernels the variant's source file compiled with its parameters."""
        manifest = self._variant_docs[variant]["manifest"]
        return os.path.join(self._folder, manifest[:-len(".json")] if manifest.endswith(".json") else manifest)

    # ------------------------------------------------------------------------------------------ target
    def set_arch(self, arch: Optional[str] = None) -> None:
        """Fixes the target whose entries are considered: "sm_90a", or None for the current CUDA device.
        Until then (or a first launch, which fixes the device's), every entry is considered."""
        err = error_buffer()
        status = self._lib.cake_library_set_arch(self._handle, arch.encode() if arch else None, err, len(err))
        if status != OK:
            raise error_for(status, err.value.decode("utf-8", "replace"))
        self._memo.clear()
        self._target_fixed = True

    @property
    def target(self) -> str:
        return self._lib.cake_library_target(self._handle).decode()

    # ------------------------------------------------------------------------------------------ dispatch
    def _shape_values(self, shape: Dict[str, Any]) -> Tuple[int, ...]:
        values = []
        for name in self.shape_vars:
            if name not in shape:
                raise CakeArgumentError("library %s: no value for shape variable %s (shape variables: %s)"
                                        % (self.name, name, ", ".join(self.shape_vars)))
            value = shape[name]
            if not isinstance(value, int) or isinstance(value, bool):
                raise CakeArgumentError("library %s: shape variable %s must be an int, not %r" % (self.name, name, value))
            values.append(value)
        unknown = set(shape) - set(self.shape_vars)
        if unknown:
            raise CakeArgumentError("library %s has no shape variable %s (shape variables: %s)"
                                    % (self.name, ", ".join(sorted(unknown)), ", ".join(self.shape_vars)))
        return tuple(values)

    def _entry_for(self, key: Tuple[int, ...]) -> int:
        entry = self._memo.get(key)
        if entry is not None:
            return entry
        for i, v in enumerate(key):
            if not isinstance(v, int) or isinstance(v, bool):
                raise CakeArgumentError("library %s: shape variable %s must be an int, not %r"
                                        % (self.name, self.shape_vars[i], v))
            if not -(1 << 63) <= v < (1 << 63):
                raise CakeArgumentError("library %s: shape variable %s = %d is out of range"
                                        % (self.name, self.shape_vars[i], v))
            self._values[i] = v
        entry = self._lib.cake_library_select(self._handle, self._values, len(key))
        if entry < 0:
            raise CakeRequirementError("library %s: no entry of the dispatch table accepts %s\n%s" % (
                self.name, ", ".join("%s = %d" % p for p in zip(self.shape_vars, key)),
                self._explain_key(key)[1]))
        if len(self._memo) >= _MEMO_LIMIT:
            self._memo.clear()
        self._memo[key] = entry
        return entry

    def entry(self, **shape: int) -> int:
        """The index of the dispatch entry taken for this shape."""
        return self._entry_for(self._shape_values(shape))

    def select(self, **shape: int):
        """The Kernel (variant) the table picks for this shape."""
        return self._entry_kernels[self.entry(**shape)]

    def variant_name(self, **shape: int) -> str:
        return self.entries[self.entry(**shape)][1]

    def _explain_key(self, key: Tuple[int, ...]) -> Tuple[int, str]:
        values = (ctypes.c_int64 * max(len(key), 1))(*key)
        text = ctypes.create_string_buffer(16384)
        chosen = ctypes.c_int(-1)
        err = error_buffer()
        status = self._lib.cake_library_explain(self._handle, values, len(key), ctypes.byref(chosen), text,
                                                len(text), err, len(err))
        if status != OK:
            raise error_for(status, err.value.decode("utf-8", "replace"))
        return chosen.value, text.value.decode("utf-8", "replace")

    def explain(self, **shape: int) -> str:
        """Which entry the table takes for this shape and why each earlier entry was passed over."""
        return self._explain_key(self._shape_values(shape))[1]

    def shape_of(self, *args: Any, **kwargs: Any) -> Tuple[int, ...]:
        """The shape-variable values of a call's arguments (tensor dims, or names given in kwargs)."""
        values = []
        for name, src in zip(self.shape_vars, self._sources):
            if name in kwargs:
                values.append(kwargs[name])
                continue
            value = None
            if src is not None:
                param, dim = src
                arg = args[param] if param < len(args) else kwargs.get(self.param_names[param])
                dims = _shape_of(arg) if arg is not None else None
                if dims is not None and dim < len(dims):
                    value = dims[dim]
            if value is None:
                raise CakeArgumentError("library %s: no value for shape variable %s (%s)" % (
                    self.name, name, "give it by name" if src is None else
                    "dim %d of argument %d (%s), which has no shape" % (src[1], src[0], self.param_names[src[0]])))
            values.append(int(value))
        return tuple(values)

    def _fix_target(self, args: Tuple[Any, ...]) -> None:
        """At the first launch without an arch: the device's compute capability (from torch when a torch CUDA
        tensor is passed, else from the driver)."""
        for arg in args:
            device = getattr(arg, "device", None)
            if getattr(device, "type", None) == "cuda":
                import torch
                major, minor = torch.cuda.get_device_capability(device)
                self.set_arch("sm_%d%d%s" % (major, minor, "a" if major >= 9 else ""))
                return
        self.set_arch(None)

    def dispatch(self, *args: Any, **kwargs: Any):
        """The Kernel a call with these arguments launches (the dispatch of __call__ without the launch)."""
        return self._dispatch(args, kwargs)[0]

    def _dispatch(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]):
        """(the Kernel to launch, the shape key it was chosen for)."""
        if not self._target_fixed:
            self._fix_target(args)
        if self._fast_key is not None and len(args) == len(self.param_names) and \
                (not kwargs if not self._named_set else kwargs.keys() == self._named_set):
            try:
                key = self._fast_key(args, kwargs)
            except (AttributeError, IndexError, KeyError, TypeError):
                key = self.shape_of(*args, **kwargs)
            entry = self._memo.get(key)
            return self._entry_kernels[entry if entry is not None else self._entry_for(key)], key
        key = self.shape_of(*args, **kwargs)
        return self._entry_kernels[self._entry_for(key)], key

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        kernel, key = self._dispatch(args, kwargs)
        if type(kernel) is KernelSequence:   # sizes its workspace at the shape just read
            kernel._launch(args, key, **kwargs)
            return
        for name in self._named_only:
            kwargs.pop(name, None)
        kernel(*args, **kwargs)


class KernelSequence:
    """A library variant that launches several kernels in order (docs/library.md), e.g. a split-K GEMM's
    partial products into an f32 workspace and their sum into C.  Called like a Kernel with the library's
    arguments; the workspace tensors are allocated per call with torch on the arguments' device (the caching
    allocator makes that a free-list lookup, and ties the memory to the current stream, or to `stream` when it is
    a torch stream), or given by the caller as `workspace=[tensor, ...]`, which must then not be reused until the
    kernels have run."""

    def __init__(self, library: Library, index: int, steps: List[Tuple[Any, List[int]]]) -> None:
        self._library = library
        self._index = index
        self.steps = steps          # (Kernel, where each of its parameters comes from: i >= 0 argument i, -1 - w
                                    # workspace w)
        self.kernels = [k for k, _ in steps]
        names: Dict[int, str] = {}
        for kernel, sources in steps:
            for p, src in enumerate(sources):
                if src >= 0:
                    names.setdefault(src, kernel.param_names[p])
        self.param_names: List[str] = [names[i] for i in range(len(names))]
        self.name = "+".join(k.name for k in self.kernels)
        self._num_workspace = library._lib.cake_library_variant_num_workspace(library._handle, index)
        self._shapes: Dict[Tuple[int, ...], List[Tuple[Tuple[int, ...], int]]] = {}

    def __repr__(self) -> str:
        return "<cakeir.KernelSequence %s>" % self.name

    def workspace_shapes(self, key: Tuple[int, ...]) -> List[Tuple[Tuple[int, ...], int]]:
        """(dims, cake dtype) of each workspace tensor at the shape-variable values `key`."""
        shapes = self._shapes.get(key)
        if shapes is not None:
            return shapes
        lib = self._library._lib
        values = (ctypes.c_int64 * max(len(key), 1))(*key)
        shapes = []
        for w in range(self._num_workspace):
            dims = (ctypes.c_int64 * 8)()
            rank, dtype = ctypes.c_int32(), ctypes.c_int()
            err = error_buffer()
            status = lib.cake_library_workspace_shape(self._library._handle, self._index, w, values, len(key), dims,
                                                      ctypes.byref(rank), ctypes.byref(dtype), err, len(err))
            if status != OK:
                raise error_for(status, err.value.decode("utf-8", "replace"))
            shapes.append((tuple(dims[d] for d in range(rank.value)), dtype.value))
        if len(self._shapes) >= _MEMO_LIMIT:
            self._shapes.clear()
        self._shapes[key] = shapes
        return shapes

    def _workspace(self, args: Tuple[Any, ...], kwargs: Dict[str, Any],
                   key: Optional[Tuple[int, ...]] = None) -> List[Any]:
        device = next((a.device for a in args if getattr(getattr(a, "device", None), "type", None) == "cuda"), None)
        if device is None:
            raise CakeArgumentError("variant %s needs a workspace: pass torch CUDA tensors (it is allocated on their "
                                    "device) or workspace=[...]" % self.name)
        import torch
        if key is None:
            key = self._library.shape_of(*args, **kwargs)
        return [torch.empty(dims, dtype=getattr(torch, TORCH_NAMES[dtype]), device=device)
                for dims, dtype in self.workspace_shapes(key)]

    def _arguments(self, args: Tuple[Any, ...], workspace: List[Any]):
        for kernel, sources in self.steps:
            yield kernel, [args[s] if s >= 0 else workspace[-1 - s] for s in sources]

    def __call__(self, *args: Any, stream: Any = None, workspace: Optional[List[Any]] = None, **kwargs: Any) -> None:
        self._launch(args, None, stream=stream, workspace=workspace, **kwargs)

    def _launch(self, args: Tuple[Any, ...], key: Optional[Tuple[int, ...]], stream: Any = None,
                workspace: Optional[List[Any]] = None, **kwargs: Any) -> None:
        """The call, with the shape key when the caller (Library.__call__) has read it already."""
        unknown = set(kwargs) - set(self._library.shape_vars)
        if unknown:
            raise CakeArgumentError("variant %s: unknown keyword argument%s %s (the arguments are positional; "
                                    "keywords name shape variables, stream and workspace)"
                                    % (self.name, "s" if len(unknown) > 1 else "", ", ".join(sorted(unknown))))
        if len(args) != len(self.param_names):
            raise CakeArgumentError("variant %s takes %d arguments (%s), got %d" % (
                self.name, len(self.param_names), ", ".join(self.param_names), len(args)))
        if workspace is None:
            workspace = self._workspace(args, kwargs, key) if self._num_workspace else []
            if hasattr(stream, "cuda_stream"):   # a torch stream: the memory is in use there until the kernels end
                for tensor in workspace:
                    tensor.record_stream(stream)
        for kernel, values in self._arguments(args, workspace):
            kernel(*values, stream=stream)

    def plan(self, *args: Any, num_sms: Optional[int] = None, **kwargs: Any):
        """The launch plan of each kernel (refuses, like Kernel.plan, a shape one of them does not accept)."""
        workspace = self._workspace(args, kwargs) if self._num_workspace else []
        return [kernel.plan(*values, num_sms=num_sms) for kernel, values in self._arguments(args, workspace)]


def load_library(path: "os.PathLike[str] | str", arch: Optional[str] = None) -> Library:
    """Loads a library folder written by `cakec library build` (or its library.json).  arch: the target whose
    dispatch entries count ("sm_90a"); default: the device's, fixed at the first launch."""
    return Library(os.fspath(path), arch)
