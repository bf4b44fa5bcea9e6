"""NumPy .npy files (format version 1.0) without NumPy: what `cakec run` reads and writes.

read_npy returns (dtype descr, shape, values as a flat list in C order); write_npy writes a flat list with a
shape.  Only the little-endian numeric dtypes the interpreter speaks are handled (bool, int8..int64,
uint8..uint64, float16/32/64), C order.  The header is a Python dict literal, parsed with ast.literal_eval;
its length field makes the data start at a multiple of 64 bytes, as NumPy writes it."""

from __future__ import annotations

import ast
import math
import struct
from typing import List, Sequence, Tuple, Union

MAGIC = b"\x93NUMPY"
STRUCT_CODES = {"|b1": "?", "|i1": "b", "|u1": "B", "<i2": "h", "<u2": "H", "<i4": "i", "<u4": "I",
                "<i8": "q", "<u8": "Q", "<f2": "e", "<f4": "f", "<f8": "d"}
Number = Union[int, float, bool]


def read_npy(path: str) -> Tuple[str, Tuple[int, ...], List[Number]]:
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != MAGIC:
        raise ValueError("%s is not a .npy file" % path)
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (length,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    descr = header["descr"].replace("=", "<")
    if descr not in STRUCT_CODES or header.get("fortran_order"):
        raise ValueError("%s: dtype %s (fortran_order %s) is not supported" % (path, descr, header.get("fortran_order")))
    shape = tuple(int(d) for d in header["shape"])
    count = math.prod(shape)
    body = data[start + length:]
    values = list(struct.unpack("<%d%s" % (count, STRUCT_CODES[descr]), body[:count * struct.calcsize(STRUCT_CODES[descr])]))
    return descr, shape, values


def write_npy(path: str, descr: str, shape: Sequence[int], values: Sequence[Number]) -> None:
    if descr not in STRUCT_CODES:
        raise ValueError("dtype %s is not supported" % descr)
    shape_text = "(%s)" % "".join("%d, " % d for d in shape) if len(shape) != 1 else "(%d,)" % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(MAGIC + b"\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), STRUCT_CODES[descr]), *values))
