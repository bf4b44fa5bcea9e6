"""cakeir.torch: a CAKE kernel as a torch.library custom operator, so torch.compile traces through it.

    import cakeir, cakeir.torch
    add = cakeir.compile("samples/vector_add.cake")
    op = cakeir.torch.register(add.vector_add)            # torch.ops.cakeir.vector_add
    op(a, b, c)                                           # c is written in place; returns None
    torch.compile(lambda a, b, c: op(a, b, c), fullgraph=True)

The operator's schema comes from the kernel's manifest and follows its destination-passing signature:
tensor parameters become `Tensor` arguments, the ones the kernel may write (manifest `"access"` other than
"read", or the names given as `outputs=`) `Tensor(a!)` arguments (so mutates_args = the outputs), scalars
`float`, `int` or `bool` by their dtype; the operator returns nothing.  Its fake (meta) implementation checks
the shapes, dtypes and `requires` clauses against the manifest (Kernel.plan on placeholder addresses, when
every dim is a concrete int) and returns None, so shape errors surface while tracing.

Streams: the CUDA implementation launches on torch.cuda.current_stream() of the first tensor's device at the
moment the operator runs (inside a CUDA graph capture that is the capturing stream, so the launch is
captured), with that device current.  CPU tensors go to `reference=` when one was given (a Python function
with the operator's arguments that writes the outputs: a CPU model of the kernel, useful for tests), else the
call fails with CakeArgumentError (CAKE kernels need CUDA tensors)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import torch

from . import Kernel, Module, _dtypes
from ._args import DevicePtr
from ._errors import CakeArgumentError

_LIBRARIES: Dict[str, Any] = {}  # namespace -> torch.library.Library (kept alive: it owns the registrations)
_SCALAR_TYPES = {_dtypes.PRED: "bool", _dtypes.I32: "int", _dtypes.U32: "int", _dtypes.I64: "int",
                 _dtypes.F16: "float", _dtypes.BF16: "float", _dtypes.F32: "float", _dtypes.F64: "float"}
_PLACEHOLDER_BASE = 1 << 40  # fake tensors have no address: the fake implementation plans at these


def schema(kernel: Kernel, outputs: Optional[Sequence[str]] = None) -> str:
    """The operator schema for `kernel`, e.g. "(Tensor A, Tensor B, Tensor(a!) C, float alpha) -> ()"."""
    written = _outputs(kernel, outputs)
    parts: List[str] = []
    alias = 0
    for name, kind, dtype in zip(kernel.param_names, kernel.param_kinds, kernel.param_dtypes):
        if kind == "tensor":
            if name in written:
                parts.append("Tensor(%s!) %s" % (_alias_name(alias), name))
                alias += 1
            else:
                parts.append("Tensor %s" % name)
        else:
            parts.append("%s %s" % (_SCALAR_TYPES.get(dtype, "float"), name))
    return "(%s) -> ()" % ", ".join(parts)


def _alias_name(index: int) -> str:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[index] if index < 26 else "a%d" % index


def _outputs(kernel: Kernel, outputs: Optional[Sequence[str]]) -> List[str]:
    tensors = [n for n, k in zip(kernel.param_names, kernel.param_kinds) if k == "tensor"]
    if outputs is None:
        return [n for n, k, w in zip(kernel.param_names, kernel.param_kinds, kernel.param_writes)
                if k == "tensor" and w]
    if isinstance(outputs, str):
        outputs = [outputs]
    for name in outputs:
        if name not in tensors:
            raise CakeArgumentError("cakeir.torch.register: %r is not a tensor parameter of %s (tensors: %s)"
                                    % (name, kernel.name, ", ".join(tensors)))
        index = kernel.param_names.index(name)
        if not kernel.param_writes[index]:
            raise CakeArgumentError("cakeir.torch.register: %s's manifest says the kernel only reads %s; an output "
                                    "must be a tensor the kernel may write" % (kernel.name, name))
    return list(outputs)


def _concrete(values: Sequence[Any]) -> bool:
    return all(type(v) is int for v in values)


def _fake(kernel: Kernel) -> Callable[..., None]:
    def fake(*args: Any) -> None:
        placeholders: List[Any] = []
        for i, (value, kind) in enumerate(zip(args, kernel.param_kinds)):
            if kind != "tensor":
                placeholders.append(value if type(value) in (int, float, bool) else None)
                continue
            shape, strides = list(value.shape), list(value.stride())
            if not (_concrete(shape) and _concrete(strides)) or value.dtype not in _TORCH_DTYPES:
                return None  # symbolic shapes: checked when the kernel runs
            placeholders.append(DevicePtr(_PLACEHOLDER_BASE * (i + 1), tuple(shape), _TORCH_DTYPES[value.dtype],
                                          tuple(strides)))
        if None not in placeholders:
            kernel.plan(*placeholders, num_sms=1)
        return None
    return fake


def _impl(kernel: Kernel, reference: Optional[Callable[..., Any]]) -> Callable[..., None]:
    def impl(*args: Any) -> None:
        if reference is not None and not any(isinstance(a, torch.Tensor) and a.is_cuda for a in args):
            reference(*args)
            return None
        kernel(*args)
        return None
    return impl


_TORCH_DTYPES: Dict[Any, str] = {torch.bool: "pred", torch.int32: "i32", torch.int64: "i64",
                                 torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32"}
for _name, _code in (("uint32", "u32"), ("float8_e4m3fn", "f8e4m3"), ("float8_e5m2", "f8e5m2")):
    if hasattr(torch, _name):
        _TORCH_DTYPES[getattr(torch, _name)] = _code


def register(kernel: Union[Kernel, Module], name: Optional[str] = None, *, outputs: Optional[Sequence[str]] = None,
             reference: Optional[Callable[..., Any]] = None) -> Any:
    """Registers `kernel` (a Kernel, or a Module with one kernel) as the custom operator `name`
    ("ns::op" or "op" in namespace "cakeir"; default "cakeir::<kernel name>") and returns
    torch.ops.<ns>.<op>.  outputs: the tensor parameters the kernel writes (default: every tensor whose manifest
    access is not "read"); reference: a CPU implementation for CPU tensors (see the module's docstring)."""
    if isinstance(kernel, Module):
        if len(kernel.kernels) != 1:
            raise CakeArgumentError("cakeir.torch.register: %s has %d kernels (%s); pass one"
                                    % (kernel.origin, len(kernel.kernels), ", ".join(kernel.kernels)))
        kernel = next(iter(kernel.kernels.values()))
    if not isinstance(kernel, Kernel):
        raise CakeArgumentError("cakeir.torch.register: expected a cakeir Kernel or Module, got %s"
                                % type(kernel).__name__)
    qualified = name or "cakeir::" + kernel.name
    namespace, _, opname = qualified.rpartition("::")
    namespace = namespace or "cakeir"
    if not opname.isidentifier() or not namespace.isidentifier():
        raise CakeArgumentError("cakeir.torch.register: %r is not an operator name (ns::name)" % qualified)
    if hasattr(torch.ops, namespace) and hasattr(getattr(torch.ops, namespace), opname):
        raise CakeArgumentError("cakeir.torch.register: operator %s::%s is already registered"
                                % (namespace, opname))
    library = _LIBRARIES.get(namespace)
    if library is None:
        library = _LIBRARIES[namespace] = torch.library.Library(namespace, "FRAGMENT")
    library.define(opname + schema(kernel, outputs))
    implementation = _impl(kernel, reference)
    library.impl(opname, implementation, "CUDA")
    library.impl(opname, implementation, "CPU")
    torch.library.register_fake("%s::%s" % (namespace, opname), _fake(kernel), lib=library)
    return getattr(getattr(torch.ops, namespace), opname)


__all__ = ["register", "schema"]
