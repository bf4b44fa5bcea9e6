"""What is measured: a problem (tensors, shapes, reference, compulsory work, peers) and a candidate (a CAKE
source and the launches one run of it makes).

A Problem names its tensors with their CAKE dtype, their dims (shape-variable names or integer literals) and
their role: "in" tensors get fresh seeded values for every trial, "out" tensors are poisoned before every
run and compared with the reference.  Its shapes are the tuning shape (where the candidate was tuned and
is timed) and at least one other shape - ragged and tail shapes belong there - since a candidate is checked
on all of them.  The reference is given per backend: reference_host over HostTensor values (the interpreter
backend, small shapes) and reference_torch over torch tensors (the GPU backend); both receive copies of the
inputs taken before the candidate ran.  Its compulsory work (every input read once, every output written
once, plus the flops its definition needs) sets the physical floor of a time (cakeir.measure.floor).

A Candidate is a .cake file, compile-time defines (a value may name a shape variable of the tuning shape as
{N}) and its launch plan: kernels in order, each bound to the problem's tensors by parameter name and run on
a stream: TIMED_STREAM is the evaluator's stream (the one its events bracket); any other name is a stream
of the candidate's own, which the evaluator never waits for.  claimed_ms holds times that come with the
candidate (a record's figures), keyed by shape label; the service checks them against the floor too."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

TIMED_STREAM = "timed"

DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "i32": 4,
               "u32": 4, "i64": 8, "u64": 8, "pred": 1}
FLOAT_DTYPES = ("bf16", "f16", "f32", "f64")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


@dataclass(frozen=True)
class Shape:
    """One problem size: a label (used in records and by claimed_ms) and the shape variables' values."""

    label: str
    sizes: Mapping[str, int]

    def __getitem__(self, name: str) -> int:
        return int(self.sizes[name])


@dataclass(frozen=True)
class TensorSpec:
    name: str
    dtype: str
    dims: Tuple[str, ...]          # shape-variable names or integer literals
    role: str                      # "in" or "out"

    def shape(self, shape: Shape) -> Tuple[int, ...]:
        return tuple(int(d) if d.lstrip("-").isdigit() else shape[d] for d in self.dims)

    def numel(self, shape: Shape) -> int:
        return math.prod(self.shape(shape))

    def nbytes(self, shape: Shape) -> int:
        return self.numel(shape) * DTYPE_BYTES[self.dtype]


@dataclass(frozen=True)
class Work:
    """The least work one run must do: bytes read from and written to global memory, and flops."""

    read_bytes: float
    write_bytes: float
    tensor_flops: float = 0.0
    fp32_flops: float = 0.0

    def to_json(self) -> Dict[str, float]:
        return {"read_bytes": self.read_bytes, "write_bytes": self.write_bytes,
                "tensor_flops": self.tensor_flops, "fp32_flops": self.fp32_flops}


HostReference = Callable[[Mapping[str, Any], Shape], Dict[str, Any]]
TorchReference = Callable[[Any, Mapping[str, Any], Shape], Dict[str, Any]]
PeerBuilder = Callable[[Any, Mapping[str, Any], Shape], Callable[[], None]]


@dataclass
class Problem:
    name: str
    tensors: List[TensorSpec]
    tuning_shape: Shape
    shapes: List[Shape]                                   # checked besides the tuning shape
    reference_host: Optional[HostReference] = None
    reference_torch: Optional[TorchReference] = None
    tolerance: float = 1e-2                               # relative error bound (docs/measurement.md)
    flops: Callable[[Shape], Tuple[float, float]] = lambda shape: (0.0, 0.0)   # (tensor, fp32)
    peers: Dict[str, PeerBuilder] = field(default_factory=dict)    # torch: name -> builder(torch, tensors, shape)

    def __post_init__(self) -> None:
        if not any(s.label != self.tuning_shape.label for s in self.shapes):
            raise ValueError("problem %s: give at least one shape other than the tuning shape" % self.name)

    @property
    def inputs(self) -> List[TensorSpec]:
        return [t for t in self.tensors if t.role == "in"]

    @property
    def outputs(self) -> List[TensorSpec]:
        return [t for t in self.tensors if t.role == "out"]

    def all_shapes(self) -> List[Shape]:
        """The tuning shape first, then every other shape once."""
        out = [self.tuning_shape]
        out += [s for s in self.shapes if s.label != self.tuning_shape.label]
        return out

    def work(self, shape: Shape) -> Work:
        tensor_flops, fp32_flops = self.flops(shape)
        return Work(read_bytes=float(sum(t.nbytes(shape) for t in self.inputs)),
                    write_bytes=float(sum(t.nbytes(shape) for t in self.outputs)),
                    tensor_flops=float(tensor_flops), fp32_flops=float(fp32_flops))


@dataclass(frozen=True)
class Launch:
    """One kernel launch of a run: the kernel's name, its tensor parameters bound to the problem's tensors
    (parameter name -> tensor name; a parameter not named is bound to the tensor of the same name), scalar
    arguments, and the stream it runs on."""

    kernel: str
    bind: Mapping[str, str] = field(default_factory=dict)
    scalars: Mapping[str, float] = field(default_factory=dict)
    stream: str = TIMED_STREAM

    def tensor_for(self, param: str) -> str:
        return self.bind.get(param, param)


@dataclass
class Candidate:
    name: str
    source: str                                           # path of the .cake file
    launches: List[Launch]
    defines: Dict[str, str] = field(default_factory=dict)
    claimed_ms: Dict[str, float] = field(default_factory=dict)

    def resolved_defines(self, tuning: Shape) -> Dict[str, str]:
        """The defines with {VAR} replaced by the tuning shape's values."""
        return {k: str(v).format(**{n: int(x) for n, x in tuning.sizes.items()}) for k, v in self.defines.items()}

    def off_stream_launches(self) -> List[Launch]:
        return [launch for launch in self.launches if launch.stream != TIMED_STREAM]


def describe_shape(sizes: Mapping[str, int]) -> str:
    return ",".join("%s=%d" % (k, int(v)) for k, v in sizes.items())


def tensor_names(specs: Sequence[TensorSpec]) -> List[str]:
    return [t.name for t in specs]
