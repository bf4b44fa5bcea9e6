"""The calibration loop on the run record: refit the cost model's machine description to the GPU timings the
record holds, and accept the refit only when it predicts held-out records better (docs/harness.md, section
"Calibration").

  1. measurements  every (candidate, kernel, shape) with timings (optionally of one GPU: a substring of the
                   timing's gpu) becomes one measurement of `cakec calibrate`'s format (cake-measurements v1,
                   docs/cost-model.md): the median of its times, the candidate's IR written to
                   WORK/c<ID>/<kernel>.cake (kernel_file), its -D values and arch.  A measurement belongs to
                   a kernel family: the family (kernels/*/family_*.json of the source tree) one of whose
                   members declares the kernel, else the kernel's own name.
  2. split         per family, the candidates sorted by id; every `holdout_every`-th of them (the 2nd, 4th,
                   ... for 2) is held out with all its shapes, so no held-out kernel variant was fitted.
  3. fit           `cakec calibrate TRAIN.json -o FITTED.json --machine PRIOR` on the rest.
  4. evaluate      `cakec --estimate --json --no-verify --machine M` of every measurement with the prior and
                   the fitted description; the error of one is |ln(predicted / measured)|; reported as the
                   mean over the held-out measurements and the training ones, overall and per family.
  5. accept        only when the held-out mean error of the fitted description is strictly below the prior's;
                   then (with `output`) the fitted description is written there.  Nothing else is changed:
                   installing it as machines/NAME.json is a person's decision.
The command line is `python -m cakeir.harness calibrate --record runs.db ...` (calibration_cli.py)."""

from __future__ import annotations

import glob
import json
import math
import os
import shutil
import statistics
import tempfile
from typing import Any, Dict, List, Optional, Sequence

from .._tools import packaged_machines_dir
from .compiler import Compiler, StageResult
from .evaluate import write_candidate
from .family import Candidate, Family
from .record import RunRecord


def _parse_shape(text: str) -> Dict[str, int]:
    return {name: int(value) for name, value in (part.split("=", 1) for part in text.split(",") if part)}


def kernel_families(source_root: str) -> Dict[str, str]:
    """{kernel name: family name} for the members of the families of a source tree (its kernels/ folder)."""
    names: Dict[str, str] = {}
    for path in sorted(glob.glob(os.path.join(source_root, "kernels", "*", "family_*.json"))):
        family = Family.load(path)
        for member in family.members:
            try:
                names[Candidate.from_file(member.source, {}, family).kernel] = family.name
            except (OSError, ValueError):
                continue
    return names


def record_measurements(record: RunRecord, folder: str, gpu: str = "",
                        families: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
    """The record's timings as measurements (see the module's comment), sorted by candidate, kernel, shape;
    each also carries `candidate` and `family`."""
    rows = record.conn.execute(
        "SELECT t.candidate_id, t.kernel, t.shape, t.time_ms, t.gpu, c.ir_text, c.defines, c.arch, c.kernel AS ck "
        "FROM timings t JOIN candidates c ON c.id = t.candidate_id WHERE t.time_ms > 0 AND t.shape != '' "
        "ORDER BY t.candidate_id, t.kernel, t.shape, t.id").fetchall()
    grouped: Dict[Any, Dict[str, Any]] = {}
    for row in rows:
        if gpu and gpu not in row["gpu"]:
            continue
        kernel = row["kernel"] or row["ck"]
        key = (row["candidate_id"], kernel, row["shape"])
        entry = grouped.setdefault(key, {"times": [], "row": row, "gpu": row["gpu"]})
        entry["times"].append(float(row["time_ms"]))
    measurements = []
    for (cand, kernel, shape), entry in sorted(grouped.items()):
        row = entry["row"]
        path = write_candidate(row["ir_text"], os.path.join(folder, "c%d" % cand), kernel)
        item: Dict[str, Any] = {"kernel_file": path, "kernel": kernel, "defines": json.loads(row["defines"] or "{}"),
                                "shape": _parse_shape(shape), "ms": statistics.median(entry["times"]),
                                "label": "candidate %d %s %s" % (cand, kernel, shape), "candidate": cand,
                                "family": (families or {}).get(kernel, kernel)}
        if row["arch"]:
            item["arch"] = row["arch"]
        if entry["gpu"]:
            item["device"] = entry["gpu"]
        measurements.append(item)
    return measurements


def split_held_out(measurements: Sequence[Dict[str, Any]], holdout_every: int) -> Dict[str, List[Dict[str, Any]]]:
    """{"train": [...], "held_out": [...]}: per family, every holdout_every-th candidate (sorted by id), with
    all its shapes, is held out."""
    by_family: Dict[str, List[int]] = {}
    for item in measurements:
        ids = by_family.setdefault(item["family"], [])
        if item["candidate"] not in ids:
            ids.append(item["candidate"])
    held = {cand for ids in by_family.values() for index, cand in enumerate(sorted(ids))
            if index % holdout_every == holdout_every - 1}
    return {"train": [m for m in measurements if m["candidate"] not in held],
            "held_out": [m for m in measurements if m["candidate"] in held]}


def _measurements_file(items: Sequence[Dict[str, Any]], path: str) -> str:
    keep = ("kernel_file", "kernel", "arch", "defines", "shape", "ms", "device", "label")
    doc = {"format": "cake-measurements", "version": 1,
           "measurements": [{key: item[key] for key in keep if key in item} for item in items]}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(doc, handle, indent=1, sort_keys=True)
    return path


def predict(compiler: Compiler, item: Dict[str, Any], machine: str) -> Optional[float]:
    """The cost model's time (ms) for one measurement on a machine description; None when it fails."""
    result: StageResult = compiler.estimate(item["kernel_file"], item["shape"], item["defines"],
                                            item.get("arch", ""), machine=machine)
    if not result.ok:
        return None
    for entry in result.output.get("estimate", {}).get("kernels", []):
        if entry.get("kernel") == item["kernel"] and entry.get("predicted_ms"):
            return float(entry["predicted_ms"])
    return None


def error_summary(items: Sequence[Dict[str, Any]], key: str) -> Dict[str, Any]:
    """Mean |ln(predicted / measured)| of the items that have a prediction under `key`: overall and per
    family, with counts (n) and the items it could not predict (unpredicted)."""
    def mean(values: List[float]) -> Optional[float]:
        return round(sum(values) / len(values), 6) if values else None
    errors: Dict[str, List[float]] = {}
    missing = 0
    for item in items:
        value = item.get(key)
        if value is None:
            missing += 1
            continue
        errors.setdefault(item["family"], []).append(abs(math.log(value / item["ms"])))
    every = [e for values in errors.values() for e in values]
    return {"mean_abs_log_error": mean(every), "n": len(every), "unpredicted": missing,
            "families": {family: {"mean_abs_log_error": mean(values), "n": len(values)}
                         for family, values in sorted(errors.items())}}


def machine_path(name_or_path: str, machines_dir: str = "") -> str:
    """A machine description NAME or PATH as a path.  NAME.json is looked for where cakec finds it: `machines_dir`,
    $CAKE_MACHINES_DIR, the package's share/cake/machines (an installed wheel), the source tree's machines/."""
    if os.path.isfile(name_or_path):
        return os.path.abspath(name_or_path)
    source_tree = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "machines")
    folders = [machines_dir, os.environ.get("CAKE_MACHINES_DIR", ""), packaged_machines_dir(), source_tree]
    for folder in folders:
        candidate = os.path.join(folder, name_or_path + ".json") if folder else ""
        if candidate and os.path.isfile(candidate):
            return os.path.normpath(candidate)
    raise FileNotFoundError("no machine description %r (a path, or NAME.json in %s)"
                            % (name_or_path, ", ".join(os.path.normpath(f) for f in folders if f)))


def calibrate_record(compiler: Compiler, record: RunRecord, machine: str, output: str = "", gpu: str = "",
                     holdout_every: int = 2, source_root: str = "", work_dir: str = "") -> Dict[str, Any]:
    """The loop of the module's comment.  Returns the report: counts, before/after error summaries on the
    held-out and training measurements, accepted, the fitted description's path (written to `output` only
    when accepted) and, per measurement, measured and predicted times."""
    if holdout_every < 2:
        raise ValueError("holdout_every must be at least 2")
    prior = machine_path(machine)
    folder = work_dir or tempfile.mkdtemp(prefix="cake-calibrate-")
    os.makedirs(folder, exist_ok=True)
    families = kernel_families(source_root) if source_root else {}
    items = record_measurements(record, os.path.join(folder, "kernels"), gpu, families)
    report: Dict[str, Any] = {"format": "cake-calibration-report", "version": 1, "record": record.path,
                              "prior": prior, "gpu_filter": gpu, "holdout_every": holdout_every,
                              "measurements": len(items), "accepted": False, "output": None}
    parts = split_held_out(items, holdout_every)
    report["train"], report["held_out"] = len(parts["train"]), len(parts["held_out"])
    if not parts["train"] or not parts["held_out"]:
        report["reason"] = "too few measured candidates to hold some out (need at least %d per split)" % 1
        return report
    train_file = _measurements_file(parts["train"], os.path.join(folder, "train.json"))
    fitted = os.path.join(folder, "fitted.json")
    result = compiler.calibrate(train_file, fitted, prior)
    report["calibrate"] = {"ok": result.ok, "exit_code": result.exit_code, "seconds": round(result.seconds, 3),
                           "stderr": result.stderr[-2000:]}
    if not result.ok or not os.path.isfile(fitted):
        report["reason"] = "cakec calibrate failed (exit %s)" % result.exit_code
        return report
    for item in items:
        item["before_ms"] = predict(compiler, item, prior)
        item["after_ms"] = predict(compiler, item, fitted)
    for name in ("held_out", "train"):
        report[name + "_before"] = error_summary(parts[name], "before_ms")
        report[name + "_after"] = error_summary(parts[name], "after_ms")
    before = report["held_out_before"]["mean_abs_log_error"]
    after = report["held_out_after"]["mean_abs_log_error"]
    comparable = report["held_out_before"]["n"] == report["held_out_after"]["n"] == len(parts["held_out"])
    report["accepted"] = bool(comparable and before is not None and after is not None and after < before)
    report["reason"] = ("held-out error %.4f -> %.4f" % (before, after)) if before is not None and after is not None \
        else "the held-out measurements could not be predicted"
    if not comparable:
        report["reason"] += "; not every held-out measurement was predicted by both descriptions"
    report["fitted"] = fitted
    if report["accepted"] and output:
        shutil.copyfile(fitted, output)
        report["output"] = os.path.abspath(output)
    report["items"] = [{key: item.get(key) for key in ("candidate", "kernel", "family", "shape", "ms", "before_ms",
                                                      "after_ms")} for item in items]
    return report


def report_text(report: Dict[str, Any]) -> str:
    """The report's figures as a few lines of text (per family: held-out before -> after)."""
    lines = ["%d measurements from %s: %d to fit, %d held out (every %d-th candidate per family)" % (
        report["measurements"], report["record"], report.get("train", 0), report.get("held_out", 0),
        report["holdout_every"])]
    if "held_out_before" in report:
        for name in ("held_out", "train"):
            before, after = report[name + "_before"], report[name + "_after"]
            lines.append("%-9s mean |ln(pred/meas)|: %s -> %s (n %d)" % (
                name.replace("_", "-"), before["mean_abs_log_error"], after["mean_abs_log_error"], after["n"]))
            for family in sorted(set(before["families"]) | set(after["families"])):
                lines.append("    %-32s %s -> %s" % (family, before["families"].get(family, {}).get("mean_abs_log_error"),
                                                      after["families"].get(family, {}).get("mean_abs_log_error")))
    lines.append("%s: %s%s" % ("accepted" if report["accepted"] else "rejected", report.get("reason", ""),
                               "; written to %s" % report["output"] if report.get("output") else ""))
    return "\n".join(lines) + "\n"
