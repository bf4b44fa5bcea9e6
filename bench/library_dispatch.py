#!/usr/bin/env python3
"""The dispatcher's time per call, on the CPU (no GPU): `cake_library_select` in C and the Python path of
cakeir.Library (shape read from the arguments + the per-shape memo), for a built library.

    python3 bench/library_dispatch.py LIBRARY_DIR --arch sm_90a [--shapes gemm|knn|kmeans|rowscale] [--out FILE]

Builds bench/library_dispatch_bench.c with `cc` against the source tree's build/lib/libcake_runtime.so, runs
it over a set of shapes (a grid typical of the library's family, tails included), then times the Python
dispatch (Library.shape_of + the memo lookup, and Library.entry(**shape)) over the same shapes.  The numbers
are host time only (the launch itself is bench/launch_overhead.py's subject).  Written to --out with the
command line when given."""

import argparse
import ctypes
import itertools
import os
import platform
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import cakeir  # noqa: E402

TAILS = [1, 7, 255, 1000, 4097, 65537]


def shapes_for(kind, names):
    if kind == "gemm":
        sizes = [64, 256, 1000, 1024, 3072, 4096, 4097, 8192, 255, 16384]
        grid = [dict(M=m, N=n, K=k) for m, n, k in itertools.product(sizes, sizes, [64, 1000, 4096, 4099])]
    elif kind == "knn":
        grid = [dict(B=b, N=n, K=m, D=d, k=k) for b, n, m, d, k in
                itertools.product([1, 4], [1, 7, 1000, 65537], [1000, 100000], [64, 128, 256], [1, 10, 32, 64])]
    elif kind == "kmeans":
        grid = [dict(B=b, N=n, K=k, D=d) for b, n, k, d in
                itertools.product([1, 4], [1, 7, 1000, 65537, 1 << 20], [1, 10, 1024, 65537], [64, 128, 256])]
    else:
        grid = [dict(M=m, N=n) for m, n in itertools.product([1, 100, 4096, 65537], [1, 4, 7, 8, 64, 1000])]
    return [tuple(s[n] for n in names) for s in grid]


class FakeTensor:
    """Something with a .shape, for Library.shape_of (no device memory is touched)."""
    def __init__(self, shape):
        self.shape = shape


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("library")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--shapes", default="gemm", choices=["gemm", "knn", "kmeans", "rowscale"])
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--out")
    args = ap.parse_args()

    lib = cakeir.load_library(args.library, arch=args.arch)
    shapes = shapes_for(args.shapes, lib.shape_vars)
    lines = ["command: " + " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
             "host: %s, %d CPUs, load average %.1f, python %s" % (platform.processor() or platform.machine(),
                                                                 os.cpu_count() or 0, os.getloadavg()[0],
                                                                 platform.python_version()),
             "library: %s (%d entries, shape variables %s), %d shapes" % (lib.name, len(lib.entries),
                                                                       ", ".join(lib.shape_vars), len(shapes))]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "bench")
        libdir = os.path.join(REPO, "build", "lib")
        subprocess.run(["cc", "-O2", "-o", exe, os.path.join(REPO, "bench", "library_dispatch_bench.c"),
                        "-I", os.path.join(REPO, "runtime", "include"), "-L", libdir, "-lcake_runtime",
                        "-Wl,-rpath," + libdir], check=True)
        shapes_file = os.path.join(tmp, "shapes.txt")
        with open(shapes_file, "w") as f:
            for s in shapes:
                f.write(" ".join(map(str, s)) + "\n")
        out = subprocess.run([exe, args.library, args.arch, shapes_file, str(args.iterations)], check=True,
                             capture_output=True, text=True).stdout.splitlines()
    counts = {}
    for line in out[:-1]:
        entry = int(line.split()[-1])
        counts[entry] = counts.get(entry, 0) + 1
    lines.append("C   cake_library_select: " + out[-1].replace("select_ns_per_call ", "") + " ns per call")
    lines.append("    shapes per entry: " + ", ".join("%s: %d" % (lib.entries[e][1] if e >= 0 else "none", n)
                                                   for e, n in sorted(counts.items())))

    # Python: the memo path of a call (shape from the arguments, then the dict) and entry(**shape).
    sources = lib._sources
    calls = []
    for s in shapes:
        args_for = {}
        for value, src in zip(s, sources):
            if src is not None:
                args_for.setdefault(src[0], {})[src[1]] = value
        tensors = []
        for p in range(len(lib.param_names)):
            dims = args_for.get(p, {})
            tensors.append(FakeTensor(tuple(dims.get(d, 1) for d in range(max(dims) + 1)) if dims else (1,)))
        named = {n: v for n, v, src in zip(lib.shape_vars, s, sources) if src is None}
        calls.append((tensors, named))
    for tensors, named in calls:   # fill the memo
        lib._entry_for(lib.shape_of(*tensors, **named))
    reps = max(1, 200000 // len(calls))
    t0 = time.perf_counter()
    for _ in range(reps):
        for tensors, named in calls:
            lib.dispatch(*tensors, **named)
    per_call = (time.perf_counter() - t0) / (reps * len(calls)) * 1e9
    lines.append("Py  Library.dispatch (a call's choice: shape from the arguments, memo): %.0f ns per call" % per_call)
    t0 = time.perf_counter()
    for _ in range(reps):
        for tensors, named in calls:
            pass
    lines.append("Py  (the empty loop over the same calls: %.0f ns per iteration)"
                 % ((time.perf_counter() - t0) / (reps * len(calls)) * 1e9))
    keys = [tuple(s) for s in shapes]
    t0 = time.perf_counter()
    for _ in range(reps):
        for k in keys:
            lib._entry_for(k)
    lines.append("Py  memo lookup alone: %.0f ns per call" % ((time.perf_counter() - t0) / (reps * len(keys)) * 1e9))
    lib._memo.clear()
    values = (ctypes.c_int64 * len(lib.shape_vars))()
    t0 = time.perf_counter()
    n = 0
    for _ in range(max(1, 20000 // len(keys))):
        for k in keys:
            for i, v in enumerate(k):
                values[i] = v
            lib._lib.cake_library_select(lib._handle, values, len(k))
            n += 1
    lines.append("Py  cake_library_select through ctypes (a memo miss): %.0f ns per call"
                 % ((time.perf_counter() - t0) / n * 1e9))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
