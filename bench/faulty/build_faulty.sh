#!/usr/bin/env bash
# bench/faulty/build_faulty.sh: builds the verifier-evidence kernels on the development machine (no GPU).
#
# For every bench/faulty/<name>.cake (a correct sample with one planted bug, described in its header):
#   1. `cakec --verify-only` must reject it; its first error (code + message) is the verdict;
#   2. the kernel is compiled anyway with --no-verify to bench/faulty/out/<name>.cubin (+ .cubin.json);
# and the unmodified sample it derives from (the `// FROM:` line) is compiled with verification on, as the
# control, to bench/faulty/out/control/<sample>.cubin.  Verdicts go to bench/faulty/out/verdicts.json, the
# runtime library is copied to bench/faulty/out/libcake_runtime.so.  bench/faulty/out is git-ignored: carry it.
# Env: CAKEC (default build-lead/cakec, else build-bench/cakec), RUNTIME_LIB (default bench/out/libcake_runtime.so).
set -u -o pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo" || exit 1
cakec=${CAKEC:-}
[ -z "$cakec" ] && for c in build-lead/cakec build-bench/cakec; do [ -x "$c" ] && { cakec=$c; break; }; done
runtime_lib=${RUNTIME_LIB:-bench/out/libcake_runtime.so}
out=bench/faulty/out
rm -rf "$out"; mkdir -p "$out/control"
python3 - "$cakec" "$out" <<'PY' || exit 1
import json, re, subprocess, sys, pathlib
cakec, out = sys.argv[1], pathlib.Path(sys.argv[2])
def arch_of(path):
    m = re.search(r'^\s*target\s+(sm_\w+)\s*;', path.read_text(), re.M)
    return "sm_90a" if m and m.group(1).endswith("a") else "sm_90"
verdicts, status = {}, 0
controls = set()
for src in sorted(pathlib.Path("bench/faulty").glob("*.cake")):
    name = src.stem
    sample = re.search(r'^// FROM: samples/(\w+)\.cake', src.read_text(), re.M).group(1)
    controls.add(sample)
    arch = arch_of(src)
    v = subprocess.run([cakec, "--arch", arch, "--verify-only", str(src)], capture_output=True, text=True, timeout=600)
    errors = [l for l in (v.stdout + v.stderr).splitlines() if ": error: " in l]
    m = re.search(r': error: (.*) \[(E\d{4})\]$', errors[0]) if errors else None
    b = subprocess.run([cakec, "--arch", arch, "--no-verify", str(src), "-o", str(out / (name + ".cubin"))],
                       capture_output=True, text=True, timeout=600)
    verdicts[name] = {"sample": sample, "arch": arch, "source": str(src), "verify_rc": v.returncode,
                      "rejected": v.returncode != 0 and m is not None,
                      "code": m.group(2) if m else None, "message": m.group(1) if m else None,
                      "all_errors": [re.sub(r'^\S+:\d+:\d+: error: ', '', e) for e in errors],
                      "build_rc": b.returncode, "build_log": (b.stdout + b.stderr)[-2000:]}
    print("%-32s %s %-6s %s  build rc=%d" % (name, arch, verdicts[name]["code"], (verdicts[name]["message"] or "NOT REJECTED")[:90], b.returncode))
    if not verdicts[name]["rejected"] or b.returncode != 0:
        status = 1
for sample in sorted(controls):
    src = pathlib.Path("samples") / (sample + ".cake")
    arch = arch_of(src)
    b = subprocess.run([cakec, "--arch", arch, str(src), "-o", str(out / "control" / (sample + ".cubin"))],
                       capture_output=True, text=True, timeout=600)
    verdicts["control:" + sample] = {"sample": sample, "arch": arch, "source": str(src), "verified_build_rc": b.returncode,
                                     "build_log": (b.stdout + b.stderr)[-2000:]}
    print("control %-24s %s verified build rc=%d" % (sample, arch, b.returncode))
    if b.returncode != 0:
        status = 1
ver = subprocess.run([cakec, "--version"], capture_output=True, text=True).stdout.strip()
commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
json.dump({"cakec": cakec, "cakec_version": ver, "commit": commit, "cases": verdicts},
          open(out / "verdicts.json", "w"), indent=1)
sys.exit(status)
PY
rc=$?
cp "$runtime_lib" "$out/libcake_runtime.so" || exit 1
echo "build_faulty.sh: wrote $out (rc=$rc)"
exit $rc
