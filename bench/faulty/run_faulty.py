"""Runs the verifier-evidence kernels (bench/faulty/*.cake, built by build_faulty.sh) on the GPU.

Each faulty kernel is a correct sample with one planted bug that `cakec --verify-only` rejects; it was built
anyway with --no-verify.  Every case (faulty kernels and the unmodified samples as controls) runs in its own
subprocess in a new process session with a hard timeout, so a kernel that hangs (deadlock) is detected and the
whole process group is killed without poisoning the next case's CUDA context.  A case:
  * sets up the buffers exactly as the benchmark does (bench/cases.py: shapes, random inputs, NaN-poisoned
    outputs, torch reference, bench/measure.compare for the error), launches through the `cake` runtime,
    synchronizes, and compares; the launch is repeated (fresh inputs each time) to catch racy failures;
  * for vector_add the output C is a slice of a larger buffer whose tail (the "neighbour") holds a sentinel
    pattern, so an out-of-bounds store shows as a changed neighbour even when C itself is right;
  * under compute-sanitizer memcheck too, when the machine has it (optional).
Outcome per case: hang (killed at the timeout), wrong (rel err / NaN / outliers), oob-write (neighbour
changed), sanitizer-error, crash (CUDA error), or correct (an honest "the bug did not show").

Usage: python3 bench/faulty/run_faulty.py --out DIR [--timeout 20] [--budget 170]
Writes DIR/faulty.json and DIR/faulty.md.  Needs bench/faulty/out (verdicts.json, cubins, libcake_runtime.so)."""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(HERE, "out")
sys.path.insert(0, os.path.join(REPO, "bench"))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

# the problem size per sample: large enough that a pipeline runs many rounds of its ring (4096^3: 64 k-tiles
# = 16 rounds of the 4-stage Hopper ring), and for vector_add a ragged N (N % 8 = 1: the unguarded last vector
# runs 7 elements past the end)
SHAPES = {"hopper_gemm": dict(M=4096, N=4096, K=4096), "ampere_gemm": dict(M=4096, N=4096, K=4096),
          "vector_add": dict(N=1001)}
REPEATS = 3             # launches per case (fresh inputs each): a race may show only sometimes
GUARD = 4096            # elements of sentinel after vector_add's C
# hang-prone cases last, so a slow machine still gets the quick evidence first
ORDER_LAST = ("hopper_gemm_producer_parity", "hopper_gemm_empty_arrivals", "hopper_gemm_expect_tx_large")


# ------------------------------------------------------------------------------------------------ child side
def run_one(name, cubin, sample):
    """One case in this (child) process; prints one JSON line with the result."""
    os.environ.setdefault("CAKE_RUNTIME_LIB", os.path.join(BUILD, "libcake_runtime.so"))
    import torch
    import cake
    import cases as case_defs
    import measure

    manifest = json.load(open(cubin + ".json"))
    case = case_defs.CASES_BY_SAMPLE[sample](manifest, cake)
    kernel, dtype = case.variants()[0]
    shape = case_defs.Shape("faulty", **SHAPES[sample])
    specs = case.buffers(shape, dtype)
    module = cake.load(cubin)
    gen = measure.generator(1234)
    result = {"shape": SHAPES[sample], "repeats": []}
    for rep in range(REPEATS):
        b, guard = {}, None
        for bname, spec in specs.items():
            tdt = case_defs.torch_dtype(torch, spec.dtype)
            if sample == "vector_add" and spec.role == "out":
                backing = torch.empty(spec.numel + GUARD, dtype=tdt, device="cuda")
                b[bname] = backing[:spec.numel].view(spec.shape)
                guard = backing[spec.numel:]
                guard.copy_(torch.arange(GUARD, device="cuda", dtype=torch.float32).remainder(251) + 1000)
                guard_ref = guard.clone()
            else:
                b[bname] = torch.empty(spec.shape, dtype=tdt, device="cuda")
            if spec.role == "in":
                case.fill(torch, bname, b[bname], gen)
            else:
                b[bname].fill_(float("nan"))
        torch.cuda.synchronize()
        t0 = time.time()
        for kname, args in case.calls(kernel, shape, b):
            getattr(module, kname)(*args)
        torch.cuda.synchronize()
        rep_res = {"kernel_s": round(time.time() - t0, 4)}
        for oname, ref in case.reference(torch, shape, b).items():
            rep_res[oname] = measure.compare(b[oname], ref, case.tolerance(specs[oname].dtype))
        if guard is not None:
            changed = (guard != guard_ref)
            rep_res["neighbour_changed"] = int(changed.sum().item())
            if rep_res["neighbour_changed"]:
                first = int(changed.nonzero()[0].item())
                last = int(changed.nonzero()[-1].item())
                rep_res["neighbour_changed_range"] = [first, last]
        result["repeats"].append(rep_res)
    print("RESULT " + json.dumps(result), flush=True)


# ----------------------------------------------------------------------------------------------- parent side
def classify(res):
    """The observed behaviour of one finished child."""
    if res.get("status") == "timeout":
        return "hang", "no completion within %.0f s; process group killed" % res["timeout_s"]
    if res.get("status") != "done":
        err = [l.strip() for l in (res.get("error") or "").splitlines() if l.strip()]
        pick = [l for l in err if "Error:" in l or "error:" in l or "Error " in l]
        return "crash", (pick[-1] if pick else (err[-1] if err else "rc=%s" % res.get("rc")))[:300]
    reps = res["result"]["repeats"]
    wrong = [r for r in reps if any(isinstance(v, dict) and not v["ok"] for v in r.values())]
    oob = [r for r in reps if r.get("neighbour_changed")]
    worst = max((v["rel_err"] for r in reps for v in r.values() if isinstance(v, dict)), default=0.0)
    nans = max((v["nan_count"] for r in reps for v in r.values() if isinstance(v, dict)), default=0)
    outl = max((v["outliers"] for r in reps for v in r.values() if isinstance(v, dict)), default=0)
    parts = []
    if wrong:
        parts.append("wrong in %d/%d launches: max rel err %.3g, NaN %d, outliers %d" % (len(wrong), len(reps), worst, nans, outl))
    if oob:
        parts.append("out-of-bounds store: %d sentinel elements after C changed in %d/%d launches (range %s)"
                     % (max(r["neighbour_changed"] for r in oob), len(oob), len(reps), oob[0].get("neighbour_changed_range")))
    if oob:
        return "oob-write" if not wrong else "wrong+oob-write", "; ".join(parts)
    if wrong:
        return "wrong", "; ".join(parts)
    return "correct", "all %d launches correct (max rel err %.3g)" % (len(reps), worst)


def spawn(argv, timeout):
    start = time.time()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return {"status": "timeout", "timeout_s": timeout, "wall_s": round(time.time() - start, 2), "log": out[-2000:]}
    line = [l for l in out.splitlines() if l.startswith("RESULT ")]
    res = {"rc": proc.returncode, "wall_s": round(time.time() - start, 2), "log": out[-3000:]}
    if proc.returncode == 0 and line:
        res.update(status="done", result=json.loads(line[-1][7:]))
    else:
        res.update(status="error", error=out[-1500:])
    return res


def sanitizer_path():
    for p in (shutil.which("compute-sanitizer"), "/usr/local/cuda/bin/compute-sanitizer",
              "/usr/local/cuda/compute-sanitizer/compute-sanitizer"):
        if p and os.path.isfile(p):
            return p
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--budget", type=float, default=170.0, help="seconds for the whole run; cases left are skipped")
    ap.add_argument("--one", nargs=3, metavar=("NAME", "CUBIN", "SAMPLE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        run_one(*args.one)
        return 0
    os.makedirs(args.out, exist_ok=True)
    build = json.load(open(os.path.join(BUILD, "verdicts.json")))
    todo = []
    for key, v in build["cases"].items():
        if key.startswith("control:"):
            todo.append((key, os.path.join(BUILD, "control", v["sample"] + ".cubin"), v, True))
        else:
            todo.append((key, os.path.join(BUILD, key + ".cubin"), v, False))
    todo.sort(key=lambda t: (not t[3], t[0] in ORDER_LAST, t[0]))
    san = sanitizer_path()
    start = time.time()
    rows = []
    for key, cubin, v, control in todo:
        row = {"case": key, "sample": v["sample"], "control": control, "arch": v["arch"],
               "verifier": None if control else {"rejected": v["rejected"], "code": v["code"], "message": v["message"]},
               "verified_build_rc": v.get("verified_build_rc")}
        if time.time() - start + args.timeout > args.budget:
            row.update(behaviour="skipped", detail="run budget used up")
        else:
            res = spawn([sys.executable, os.path.abspath(__file__), "--one", key, cubin, v["sample"]], args.timeout)
            row["behaviour"], row["detail"] = classify(res)
            row["run"] = res
        print("%-34s %-8s %-16s %s" % (key, (row["verifier"] or {}).get("code") or "control", row["behaviour"], row["detail"]), flush=True)
        rows.append(row)
    # compute-sanitizer memcheck on the vector_add cases (faulty first), when the machine has it and time is left
    for row in sorted((r for r in rows if r["sample"] == "vector_add"), key=lambda r: r["control"]):
        if not san or time.time() - start + 45 > args.budget:
            break
        cubin = os.path.join(BUILD, "control", "vector_add.cubin") if row["control"] else \
            os.path.join(BUILD, row["case"] + ".cubin")
        sres = spawn([san, "--tool", "memcheck", sys.executable, os.path.abspath(__file__), "--one", row["case"], cubin,
                      "vector_add"], 45)
        errs = [l for l in sres.get("log", "").splitlines() if "ERROR SUMMARY" in l or "Invalid" in l]
        row["sanitizer"] = {"status": sres["status"], "lines": errs[:8]}
        print("%-34s compute-sanitizer: %s %s" % (row["case"], sres["status"], errs[:2]), flush=True)
    dev = {}
    try:
        dev["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                           capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001 - the description is optional
        dev["nvidia_smi"] = "unavailable: %s" % e
    dev["compute_sanitizer"] = san
    report = {"what": "verifier evidence: kernels rejected by cakec --verify-only, built with --no-verify, run on the GPU",
              "build": {k: build[k] for k in ("cakec_version", "commit")}, "device": dev,
              "timeout_s": args.timeout, "repeats": REPEATS, "shapes": SHAPES, "cases": rows}
    with open(os.path.join(args.out, "faulty.json"), "w") as f:
        json.dump(report, f, indent=1)
    lines = ["# Verifier evidence on hardware", "",
             "Device: %s; cakec %s (commit %s); timeout %.0f s per case; %d launches per case." %
             (dev["nvidia_smi"], build["cakec_version"], build["commit"][:12], args.timeout, REPEATS), "",
             "| case | verifier (cakec --verify-only) | observed on the GPU |", "| --- | --- | --- |"]
    for r in rows:
        ver = "control: verified build rc=%s" % r["verified_build_rc"] if r["control"] else \
            "%s %s" % (r["verifier"]["code"], r["verifier"]["message"].replace("|", "\\|"))
        obs = "**%s**: %s" % (r["behaviour"], r["detail"].replace("|", "\\|"))
        if r.get("sanitizer"):
            obs += "; compute-sanitizer: %s" % " / ".join(r["sanitizer"]["lines"][:2])
        lines.append("| %s | %s | %s |" % (r["case"], ver, obs))
    with open(os.path.join(args.out, "faulty.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
