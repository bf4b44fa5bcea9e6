#!/usr/bin/env python3
"""Where a kernel's time goes, by .cake source line: joins Nsight Compute's per-SASS-instruction counters with
the line table of a cubin built with -lineinfo.

    cakec k.cake -lineinfo -o k.cubin                                   # the cubin that was profiled
    ncu --set full -k regex:NAME -o prof python3 run.py                 # device
    ncu --import prof.ncu-rep --page source --csv --print-source sass | gzip > sass.csv.gz
    python3 bench/ncu_lines.py k.cubin sass.csv.gz --kernel NAME --source k.cake [--regions a-b:name,...]

nvdisasm -g (the CUDA toolkit's, or PyPI's nvidia-cuda-nvdisasm; --nvdisasm PATH) gives each SASS offset its
.cake line; the CSV's addresses are made offsets by subtracting the kernel's first address.  Prints, per line
(and per region of lines when --regions is given): the share of warp-state samples, of executed
instructions, and the leading stall reasons."""

import argparse
import collections
import csv
import gzip
import re
import shutil
import subprocess
import sys


def line_table(cubin, nvdisasm):
    """SASS offset -> .cake line, from nvdisasm -g."""
    text = subprocess.run([nvdisasm, "-g", "-c", cubin], check=True, capture_output=True, text=True).stdout
    table, line = {}, None
    for row in text.splitlines():
        if "//## File" in row:
            m = re.search(r"line (\d+)", row)
            line = int(m.group(1)) if m else None
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/", row)
        if m:
            table[int(m.group(1), 16)] = line
    return table


def kernel_rows(csv_path, kernel):
    """(header, rows) of one kernel's block of the CSV."""
    opener = gzip.open if csv_path.endswith(".gz") else open
    rows = list(csv.reader(opener(csv_path, "rt")))
    starts = [i for i, r in enumerate(rows) if r and r[0] == "Kernel Name"]
    for n, s in enumerate(starts):
        if kernel is None or rows[s][1] == kernel:
            end = starts[n + 1] if n + 1 < len(starts) else len(rows)
            return rows[s + 1], [r for r in rows[s + 2:end] if len(r) >= len(rows[s + 1])]
    sys.exit("ncu_lines: no kernel %r in %s (have %s)" % (kernel, csv_path, ", ".join(rows[s][1] for s in starts)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cubin")
    ap.add_argument("csv")
    ap.add_argument("--kernel")
    ap.add_argument("--source", help="the .cake file, to print each line's text")
    ap.add_argument("--regions", default="", help="comma-separated FIRST-LAST:NAME line ranges")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--nvdisasm", default=shutil.which("nvdisasm") or "nvdisasm")
    args = ap.parse_args()

    table = line_table(args.cubin, args.nvdisasm)
    hdr, rows = kernel_rows(args.csv, args.kernel)
    addr, samples, executed = (hdr.index(h) for h in ("Address", "Warp Stall Sampling (All Samples)",
                                                       "Instructions Executed"))
    stalls = [(h[len("stall_"):], hdr.index(h)) for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    per_line = collections.defaultdict(collections.Counter)
    base = int(rows[0][addr], 16)
    for r in rows:
        c = per_line[table.get(int(r[addr], 16) - base)]
        c["samples"] += int(r[samples] or 0)
        c["executed"] += int(r[executed] or 0)
        for name, i in stalls:
            c["stall " + name] += int(r[i] or 0)
    total = collections.Counter()
    for c in per_line.values():
        total.update(c)
    source = open(args.source).read().splitlines() if args.source else []

    def describe(c):
        reasons = sorted(((v, k[6:]) for k, v in c.items() if k.startswith("stall ")), reverse=True)[:3]
        s = sum(v for k, v in c.items() if k.startswith("stall ")) or 1
        return "%5.1f%% of samples  %5.1f%% of instructions  (%s)" % (
            100 * c["samples"] / max(total["samples"], 1), 100 * c["executed"] / max(total["executed"], 1),
            ", ".join("%s %.0f%%" % (k, 100 * v / s) for v, k in reasons))

    print("%s: %d samples, %d warp instructions executed" % (args.kernel or "kernel", total["samples"],
                                                             total["executed"]))
    print("stalls: " + describe(total).split("(", 1)[1].rstrip(")"))
    if args.regions:
        print("\nby region:")
        for spec in args.regions.split(","):
            span, name = spec.split(":", 1)
            first, last = (int(x) for x in span.split("-"))
            c = collections.Counter()
            for line, lc in per_line.items():
                if line is not None and first <= line <= last:
                    c.update(lc)
            print("  %-24s %s" % (name, describe(c)))
    print("\nby line:")
    for line, c in sorted(per_line.items(), key=lambda kv: -kv[1]["samples"])[:args.top]:
        text = source[line - 1].strip()[:80] if source and line else ""
        print("  %5s %s  %s" % (line, describe(c), text))


if __name__ == "__main__":
    main()
