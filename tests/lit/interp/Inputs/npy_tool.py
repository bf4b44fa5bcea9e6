#!/usr/bin/env python3
"""Small .npy helper for the interpreter's lit tests (no numpy needed).

  npy_tool.py ramp OUT DTYPE N [SEED]   write a 1-D array of N values ((i*37 + SEED) % 101) / 16 - 3
                                        (exact in bf16/f16/f32); DTYPE is f4, f2 or i4
  npy_tool.py add A B C                 check C == A + B element-wise (bf16-exact inputs); prints "ok N"
  npy_tool.py print FILE                print dtype, shape and the values, one per line
"""
import ast
import struct
import sys

CODES = {"f4": "f", "f2": "e", "i4": "i", "u4": "I", "i8": "q", "b1": "?", "f8": "d"}


def write(path, dtype, shape, values):
    header = "{'descr': '<%s', 'fortran_order': False, 'shape': (%s), }" % (
        dtype, "".join("%d," % d for d in shape))
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header += " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), CODES[dtype]), *values))


def read(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "not a .npy file"
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    dtype = header["descr"][1:]
    shape = header["shape"]
    n = 1
    for d in shape:
        n *= d
    values = struct.unpack_from("<%d%s" % (n, CODES[dtype]), data, 10 + hlen)
    return dtype, shape, list(values)


def main(argv):
    if argv[1] == "ramp":
        out, dtype, n = argv[2], argv[3], int(argv[4])
        seed = int(argv[5]) if len(argv) > 5 else 0
        vals = [((i * 37 + seed) % 101) / 16 - 3 for i in range(n)]
        if dtype[0] == "i":
            vals = [int(v * 16) for v in vals]
        write(out, dtype, (n,), vals)
    elif argv[1] == "add":
        _, _, a = read(argv[2])
        _, _, b = read(argv[3])
        dtype, shape, c = read(argv[4])
        bad = [i for i in range(len(c)) if c[i] != a[i] + b[i]]
        print("ok %d" % len(c) if not bad else "mismatch at %s" % bad[:10])
    elif argv[1] == "print":
        dtype, shape, vals = read(argv[2])
        print(dtype, shape)
        for v in vals:
            print(v)


if __name__ == "__main__":
    main(sys.argv)
