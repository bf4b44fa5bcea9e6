"""Reading and writing .npy files without NumPy, for the interpreter's inputs and outputs (`cakec run` reads
and writes .npy; docs/interpreter.md).

Only what cakec run exchanges: version 1.0 headers, little-endian, C order, and the element types bool,
int8..int64, uint8..uint64, float16/32/64.  An array is its shape and its elements as a flat Python list in
row-major order; struct packs and unpacks them (format 'e' is IEEE half)."""

from __future__ import annotations

import ast
import struct
from typing import List, Sequence, Tuple, Union

Number = Union[int, float, bool]

_FORMATS = {"|b1": "?", "|i1": "b", "|u1": "B", "<i2": "h", "<u2": "H", "<i4": "i", "<u4": "I", "<i8": "q",
            "<u8": "Q", "<f2": "e", "<f4": "f", "<f8": "d"}
_ALIASES = {"bool": "|b1", "int8": "|i1", "uint8": "|u1", "int16": "<i2", "uint16": "<u2", "int32": "<i4",
            "uint32": "<u4", "int64": "<i8", "uint64": "<u8", "float16": "<f2", "float32": "<f4", "float64": "<f8"}
_MAGIC = b"\x93NUMPY"


def dtype_descr(dtype: str) -> str:
    """NumPy's descr ('<f4') for a dtype name ('float32') or a descr; ValueError for other types."""
    descr = _ALIASES.get(dtype, dtype)
    if descr in ("<b1", "<i1", "<u1"):
        descr = "|" + descr[1:]
    if descr not in _FORMATS:
        raise ValueError("unsupported .npy element type %r (supported: %s)" % (dtype, ", ".join(_ALIASES)))
    return descr


def write_npy(path: str, values: Sequence[Number], shape: Sequence[int], dtype: str = "float32") -> None:
    """Writes values (row-major, len = product of shape) as a C-order .npy array."""
    descr = dtype_descr(dtype)
    count = 1
    for dim in shape:
        count *= int(dim)
    if count != len(values):
        raise ValueError("%d values for shape %s" % (len(values), tuple(shape)))
    dims = "".join("%d," % int(dim) for dim in shape) if len(shape) == 1 else ", ".join(str(int(d)) for d in shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (len(_MAGIC) + 4 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as handle:
        handle.write(_MAGIC + b"\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        handle.write(struct.pack("<%d%s" % (count, _FORMATS[descr]), *values))


def read_npy(path: str) -> Tuple[List[Number], Tuple[int, ...], str]:
    """(values in row-major order, shape, descr) of a .npy file; ValueError for what this reader refuses."""
    with open(path, "rb") as handle:
        data = handle.read()
    if not data.startswith(_MAGIC) or len(data) < 10:
        raise ValueError("%s is not a .npy file" % path)
    major = data[6]
    if major == 1:
        length, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        length, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header.get("fortran_order"):
        raise ValueError("%s: Fortran-order arrays are not supported" % path)
    descr = dtype_descr(header["descr"])
    shape = tuple(int(dim) for dim in header["shape"])
    count = 1
    for dim in shape:
        count *= dim
    fmt = "<%d%s" % (count, _FORMATS[descr])
    body = data[start + length:]
    if len(body) < struct.calcsize(fmt):
        raise ValueError("%s: %d bytes of data, %d needed" % (path, len(body), struct.calcsize(fmt)))
    return list(struct.unpack(fmt, body[:struct.calcsize(fmt)])), shape, descr
