#!/usr/bin/env python3
"""Convert bench results (bench/results/*.json, format "cake-bench" written by bench/run_bench.py) into the
cost model's measurements format ("cake-measurements" v1, docs/cost-model.md) for `cakec calibrate`.

Usage: results_to_measurements.py RESULTS.json [RESULTS.json ...] -o MEASUREMENTS.json

Every case with status "ok" becomes one measurement: the sample's .cake file, the kernel (row_softmax
cases measured in f16 use the row_softmax_f16 kernel of the same file), the arch the cubin was built for,
the compile-time defines of the case (none for the default variants), the shape (dims) and the median
measured milliseconds of the cake kernel.  Defines: the case's own, else every compile-time default of
the kernel as of the results' commit (git show COMMIT:samples/SAMPLE.cake), so the measurement keeps
meaning the variant that was measured after the sample's defaults change.  Cases that were refused, skipped or failed are left out."""
import argparse
import json
import os
import re
import subprocess
import sys

# kernel name in the sample file for a (sample, dtype) pair, when it is not the sample's name
KERNEL_FOR_DTYPE = {("row_softmax", "f16"): "row_softmax_f16"}


def pinned_defaults(sample, kernel, commit, repo):
    """The kernel's compile-time defaults in samples/SAMPLE.cake as of `commit` (the tree the cubins were
    built from), so a later change of the sample's defaults does not change what the measurement means."""
    try:
        text = subprocess.run(["git", "-C", repo, "show", "%s:samples/%s.cake" % (commit, sample)],
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    pinned = ct_defaults(text, kernel)
    try:
        with open(os.path.join(repo, "samples", sample + ".cake")) as f:
            current = ct_defaults(f.read(), kernel)
    except OSError:
        return {}
    # A sample rewritten since (its parameters renamed) cannot be pinned: the current defaults are used and
    # the measurement is only as good as the rewrite's similarity (docs/cost-model.md says which ones).
    if not set(pinned) <= set(current):
        return {}
    return pinned


def ct_defaults(text, kernel):
    m = re.search(r"kernel\s+%s\s*<([^>]*)>" % re.escape(kernel), text)
    if not m:
        return {}
    return {name: int(value) for name, value in re.findall(r"(\w+)\s*=\s*(-?\d+)", m.group(1))}


def case_to_measurement(case, device, source, commit=None, repo="."):
    result = case.get("result") or {}
    if result.get("status") != "ok" or not result.get("cake"):
        return None
    sample = case["sample"]
    kernel = KERNEL_FOR_DTYPE.get((sample, case.get("dtype")), case.get("kernel") or sample)
    return {
        "kernel_file": "samples/%s.cake" % sample,
        "kernel": kernel,
        "arch": case.get("arch"),
        "defines": case.get("defines") or (pinned_defaults(sample, kernel, commit, repo) if commit else {}),
        "shape": {k: int(v) for k, v in (case.get("dims") or {}).items()},
        "ms": float(result["cake"]["ms"]),
        "device": device,
        "label": "%s %s %s" % (kernel, case.get("dtype", ""), case.get("shape", "")),
        "source": "%s#case-%s" % (source, case.get("id")),
    }


def convert_document(doc, source):
    """One cake-bench results document -> a cake-measurements document."""
    if doc.get("format") != "cake-bench":
        raise ValueError("%s: not a cake-bench results file" % source)
    device = ((doc.get("meta") or {}).get("device") or {}).get("name", "")
    commit = (doc.get("meta") or {}).get("commit")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = []
    for case in doc.get("cases", []):
        m = case_to_measurement(case, device, source, commit, repo)
        if m:
            out.append(m)
    return {"format": "cake-measurements", "version": 1, "device": device, "measurements": out}


def convert(paths):
    merged = {"format": "cake-measurements", "version": 1, "device": "", "measurements": []}
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        try:
            one = convert_document(doc, os.path.basename(path))
        except ValueError as e:
            raise SystemExit(str(e))
        merged["device"] = one["device"] or merged["device"]
        merged["measurements"].extend(one["measurements"])
    return merged


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    doc = convert(args.results)
    with open(args.output, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("%d measurements -> %s" % (len(doc["measurements"]), args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
