#!/usr/bin/env python3
"""The measurement service's adversarial self-test on the GPU (cakeir.measure, GPU backend): the cheat suite
of tests/measure/cheats/ (suite.py: the honest samples/vector_add.cake and six cheats) at device shapes
(suite.DEVICE_SIZES: tuning N = 2^24, others 1000003 and 2^27 + 8), each candidate checked, timed against
torch.add in the same process and classified; every cheat must get its expected classification and the
honest kernel none.

    python3 bench/measure_selftest.py --build bench/out/measure     # here: cubins (sm_90) + libcake_runtime.so
    python3 bench/measure_selftest.py --cubins bench/out/measure --out DIR    # on the device, bench/out carried

The build step compiles every candidate with cakec (the shape_special_case cheat with -D TUNED_N = the device
tuning N) to <name>.cubin and copies libcake_runtime.so next to them (bench/out/libcake_runtime.so from
bench/build.sh when there, else build*/lib).  The run writes DIR/measure_selftest.json (every result's full
record: trials, comparisons, timings, findings, the device) and DIR/measure_selftest.md (one row per
candidate: expected and given classification, the checks that fired).  Exit 0 when every candidate got its
expected verdict, 1 otherwise."""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
sys.path.insert(0, os.path.join(REPO, "tests", "measure", "cheats"))

import suite  # noqa: E402


def build(folder, arch):
    from cakeir._tools import find_cakec, tool_environment
    cakec = find_cakec(os.environ.get("CAKE_CAKEC"))
    os.makedirs(folder, exist_ok=True)
    problem = suite.problem(suite.DEVICE_SIZES)
    for candidate, _ in suite.candidates(problem):
        cmd = [cakec, candidate.source, "-o", os.path.join(folder, candidate.name + ".cubin"), "--arch", arch]
        for key, value in candidate.resolved_defines(problem.tuning_shape).items():
            cmd += ["-D", "%s=%s" % (key, value)]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=True, env=tool_environment())
    libs = [os.path.join(REPO, "bench", "out", "libcake_runtime.so")]
    libs += sorted(glob.glob(os.path.join(REPO, "build*", "lib", "libcake_runtime.so")), key=os.path.getmtime,
                   reverse=True)
    for lib in libs:
        if os.path.isfile(lib):
            if os.path.abspath(lib) != os.path.abspath(os.path.join(folder, "libcake_runtime.so")):
                shutil.copy2(lib, os.path.join(folder, "libcake_runtime.so"))
            print("runtime: %s" % lib)
            break
    else:
        print("no libcake_runtime.so found: build it first (bench/build.sh or ninja -C build)", file=sys.stderr)
        return 1
    return 0


def markdown(rows, device):
    lines = ["# Measurement service self-test (GPU backend)", "",
             "Device: %s; problem vector_add (bf16), tuning N = %d, other shapes %s." % (
                 device.get("device"), suite.DEVICE_SIZES["tuning"], suite.DEVICE_SIZES["others"]), "",
             "| candidate | expected | verdict | caught | checks that fired | median ms | floor ms | torch.add ms |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        timing = r["timing"] or {}
        functions = timing.get("functions", {})
        mine = functions.get(r["candidate"], {})
        peer = functions.get("torch.add", {})
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["candidate"], r["expected"] or "ok", r["verdict"] or "ok", "yes" if r["as_expected"] else "NO",
            ", ".join(r["checks"]) or "-", "%.4f" % mine["ms"] if mine else "-",
            "%.4f" % timing["floor"]["ms"] if timing.get("floor") else "-", "%.4f" % peer["ms"] if peer else "-"))
    return "\n".join(lines) + "\n"


def run(args):
    import run_bench
    cake = run_bench.use_runtime_library(args.cubins)
    run_bench.ensure_runtime_loads(cake)
    from cakeir.measure import measure
    from cakeir.measure.gpu import GpuBackend
    backend = GpuBackend(cubin_dir=args.cubins)
    problem = suite.problem(suite.DEVICE_SIZES)
    rows, records = [], []
    for candidate, expected in suite.candidates(problem):
        t0 = time.time()
        try:
            result = measure(problem, candidate, backend, seed=args.seed)
            doc = result.to_json()
            verdict = doc["verdict"]
            checks = sorted({"%s:%s" % (f["classification"], f["check"]) for f in doc["findings"]})
        except Exception as error:  # noqa: BLE001 - a crash is a row of the report, not the end of the run
            import traceback
            doc = {"candidate": candidate.name, "error": "%s: %s" % (type(error).__name__, error),
                   "traceback": traceback.format_exc(limit=8)}
            verdict, checks = "error", []
        row = {"candidate": candidate.name, "expected": expected, "verdict": verdict,
               "as_expected": verdict == expected, "checks": checks, "timing": doc.get("timing"),
               "seconds": time.time() - t0}
        rows.append(row)
        records.append(doc)
        print("%-20s expected %-20s got %-20s %s" % (candidate.name, expected, verdict,
                                                    "ok" if row["as_expected"] else "MISMATCH"), flush=True)
    device = backend.describe()
    document = {"command": " ".join([os.path.basename(sys.executable)] + sys.argv), "device": device,
                "sizes": suite.DEVICE_SIZES, "rows": rows, "results": records,
                "all_as_expected": all(r["as_expected"] for r in rows)}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "measure_selftest.json"), "w") as f:
        json.dump(document, f, indent=1, default=str)
    with open(os.path.join(args.out, "measure_selftest.md"), "w") as f:
        f.write(markdown(rows, device))
    return 0 if document["all_as_expected"] else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", metavar="DIR", help="compile the suite's cubins into DIR (no GPU needed)")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--cubins", metavar="DIR", help="the folder --build wrote")
    ap.add_argument("--out", metavar="DIR")
    ap.add_argument("--seed", type=int, default=19002)
    args = ap.parse_args()
    if args.build:
        return build(args.build, args.arch)
    if not (args.cubins and args.out):
        ap.error("give --build DIR, or --cubins DIR and --out DIR")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
