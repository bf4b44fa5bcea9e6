#!/usr/bin/env python3
"""Inputs and check for gemm_nt_simt on the interpreter (no numpy needed).

  gemm_nt.py inputs A.npy B.npy M N K    A [M, K], B [N, K]: multiples of 1/16 in [-3, 3.3] (exact in bf16)
  gemm_nt.py check A.npy B.npy C.npy     C == bf16(A . B^T) exactly (the f32 sums are exact for these
                                         values); prints "ok M N" or the first mismatches
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "interp", "Inputs"))
from npy_tool import read, write  # noqa: E402


def bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000   # round to nearest even
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def main(argv):
    if argv[1] == "inputs":
        m, n, k = int(argv[4]), int(argv[5]), int(argv[6])
        write(argv[2], "f4", (m, k), [((i * 37 + 1) % 101) / 16 - 3 for i in range(m * k)])
        write(argv[3], "f4", (n, k), [((i * 53 + 7) % 97) / 16 - 3 for i in range(n * k)])
    else:
        _, (m, k), a = read(argv[2])
        _, (n, _), b = read(argv[3])
        _, shape, c = read(argv[4])
        assert tuple(shape) == (m, n), shape
        bad = []
        for i in range(m):
            for j in range(n):
                want = bf16(sum(a[i * k + t] * b[j * k + t] for t in range(k)))
                if c[i * n + j] != want:
                    bad.append((i, j, c[i * n + j], want))
        print("ok %d %d" % (m, n) if not bad else "mismatch %s" % bad[:5])


if __name__ == "__main__":
    main(sys.argv)
