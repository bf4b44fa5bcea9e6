"""Tensors of the interpreter backend: flat Python lists in host memory, with the element rounding, the
seeded random fill, the poison and the bitwise equality the protocol needs.

Values are kept as the kernel's dtype holds them: bf16 and f16 values are rounded to nearest even when
made (round_to), so what the interpreter reads from the .npy file is exactly what the reference sees.  The
random fill is standard normal from random.Random(seed) (never zeros; integers uniform in [-100, 100]);
the poison is NaN for float dtypes and INT_SENTINEL for integer ones."""

from __future__ import annotations

import math
import random
import struct
from dataclasses import dataclass
from typing import List, Sequence, Tuple, Union

from .problem import is_float

INT_SENTINEL = -0x7FFFFFF0          # no index or label a kernel writes has this value
Number = Union[int, float]

# the .npy dtype each CAKE dtype travels as (NumPy has no bfloat16: the interpreter writes bf16 as float32)
NPY_DESCR = {"bf16": "<f4", "f16": "<f2", "f32": "<f4", "f64": "<f8", "i8": "|i1", "u8": "|u1", "i16": "<i2",
             "u16": "<u2", "i32": "<i4", "u32": "<u4", "i64": "<i8", "u64": "<u8", "pred": "|b1"}


def round_bf16(x: float) -> float:
    """x rounded to the nearest bfloat16 (ties to even); NaN and infinities stay."""
    if math.isnan(x) or math.isinf(x):
        return x
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(struct.unpack("<f", struct.pack("<I", bits))[0])


def round_to(dtype: str, x: float) -> Number:
    if dtype == "bf16":
        return round_bf16(x)
    if dtype == "f16":
        return float(struct.unpack("<e", struct.pack("<e", x))[0])
    if dtype == "f32":
        return float(struct.unpack("<f", struct.pack("<f", x))[0])
    if dtype == "f64":
        return float(x)
    return int(x)


@dataclass
class HostTensor:
    dtype: str
    shape: Tuple[int, ...]
    values: List[Number]

    def clone(self) -> "HostTensor":
        return HostTensor(self.dtype, self.shape, list(self.values))

    @property
    def npy_descr(self) -> str:
        return NPY_DESCR[self.dtype]


def random_tensor(dtype: str, shape: Sequence[int], seed: int) -> HostTensor:
    rng = random.Random(seed)
    count = math.prod(shape)
    if is_float(dtype):
        values: List[Number] = []
        while len(values) < count:
            v = round_to(dtype, rng.gauss(0.0, 1.0))
            if v != 0.0:
                values.append(v)
    else:
        values = [rng.choice([v for v in range(-100, 101) if v != 0]) if not dtype.startswith("u") else
                  rng.randint(1, 100) for _ in range(count)]
    return HostTensor(dtype, tuple(shape), values)


def poisoned_tensor(dtype: str, shape: Sequence[int]) -> HostTensor:
    poison: Number = math.nan if is_float(dtype) else INT_SENTINEL
    return HostTensor(dtype, tuple(shape), [poison] * math.prod(shape))


def is_poison(dtype: str, value: Number) -> bool:
    return math.isnan(value) if is_float(dtype) else value == INT_SENTINEL


def bits(dtype: str, value: Number) -> bytes:
    """The value's bytes as the host keeps it (floats as float64, so NaN payloads compare too)."""
    return struct.pack("<d", value) if is_float(dtype) else struct.pack("<q", int(value))


def bit_equal(a: HostTensor, b: HostTensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and \
        all(bits(a.dtype, x) == bits(b.dtype, y) for x, y in zip(a.values, b.values))
