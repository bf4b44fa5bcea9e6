"""The calibration loop on a run record (cakeir.harness.calibration, `python -m cakeir.harness calibrate`)
against the built cakec, on synthetic records: timings of vector_add and row_softmax variants made from the
prior description's own predictions.  Times 1.6x the prior's (a slower GPU than the description says) must be
fitted, improve the held-out error and be accepted, with per-family figures; times equal to the prior's
leave nothing to improve, so the refit is rejected and nothing is written."""

import json
import os

import pytest

from cakeir.harness import RunRecord
from cakeir.harness import calibration
from cakeir.harness.calibration import calibrate_record, kernel_families, record_measurements, split_held_out
from cakeir.harness.calibration_cli import main as calibrate_main
from cakeir.harness.compiler import Compiler
from cakeir.harness.family import Candidate

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRIOR = os.path.join(REPO, "machines", "h200-prior.json")
VARIANTS = [("samples/vector_add.cake", {"THREADS": t}, ["N=1048576", "N=16777216", "N=134217728"])
            for t in (128, 256, 512, 1024)] + \
           [("samples/row_softmax.cake", {"WARPS": w, "VPT": v}, ["R=16384,C=4096", "R=65536,C=1024"])
            for w in (4, 8) for v in (4, 8)]


def _prior_ms(compiler, path, defines, shape):
    result = compiler.estimate(path, shape, defines, machine=PRIOR)
    assert result.ok, result.stderr
    return result.output["estimate"]["kernels"][0]["predicted_ms"]


def _synthetic_record(path, compiler, factor):
    """One candidate per variant, one timing per shape: factor x the prior's prediction, with noise of +-2%
    (a fixed pattern) that no description can fit."""
    with RunRecord(path) as record:
        for index, (source, defines, shapes) in enumerate(VARIANTS):
            candidate = Candidate.from_file(os.path.join(REPO, source), defines)
            cand = record.add_candidate(candidate.text, candidate.defines, "", candidate.kernel, "synthetic")
            for number, shape in enumerate(shapes):
                noise = 1.0 + 0.02 * (((index + number) % 3) - 1)
                ms = factor * noise * _prior_ms(compiler, os.path.join(REPO, source), candidate.defines, shape)
                record.add_timing(cand, ms, candidate.kernel, shape, gpu="NVIDIA H200 (synthetic)")


def test_measurements_and_split_from_the_record(cakec_only, tmp_path):
    compiler = Compiler(cakec_only)
    _synthetic_record(str(tmp_path / "runs.db"), compiler, 1.0)
    with RunRecord(str(tmp_path / "runs.db")) as record:
        record.add_timing(1, 5.0, "vector_add", "N=1048576", gpu="other GPU")
        items = record_measurements(record, str(tmp_path / "m"), gpu="H200")
        everything = record_measurements(record, str(tmp_path / "m2"))
    assert len(items) == 4 * 3 + 4 * 2 and {m["family"] for m in items} == {"vector_add", "row_softmax"}
    assert next(m for m in everything if m["candidate"] == 1 and m["shape"] == {"N": 1048576})["ms"] > \
        next(m for m in items if m["candidate"] == 1 and m["shape"] == {"N": 1048576})["ms"]   # median of 2
    assert all(os.path.isfile(m["kernel_file"]) for m in items)
    parts = split_held_out(items, 2)
    held = sorted({m["candidate"] for m in parts["held_out"]})
    assert held == [2, 4, 6, 8] and len(parts["train"]) + len(parts["held_out"]) == len(items)
    assert kernel_families(REPO)["kmeans_assign_naive"] == "kmeans_assign_bf16_sm90"


def test_a_slower_gpu_is_fitted_and_accepted(cakec_only, tmp_path):
    compiler = Compiler(cakec_only)
    database = str(tmp_path / "runs.db")
    _synthetic_record(database, compiler, 1.6)
    output = tmp_path / "refit.json"
    with RunRecord(database) as record:
        report = calibrate_record(compiler, record, PRIOR, str(output), holdout_every=2,
                                  work_dir=str(tmp_path / "work"))
    assert report["accepted"], report["reason"]
    before, after = report["held_out_before"], report["held_out_after"]
    assert before["n"] == after["n"] == report["held_out"] == 10
    assert before["mean_abs_log_error"] > 0.4 and after["mean_abs_log_error"] < 0.5 * before["mean_abs_log_error"]
    assert set(after["families"]) == {"vector_add", "row_softmax"}
    for family in after["families"]:
        assert after["families"][family]["mean_abs_log_error"] < before["families"][family]["mean_abs_log_error"]
    assert json.loads(output.read_text()) == json.loads(open(report["fitted"]).read())


def test_nothing_to_improve_is_rejected_from_the_command_line(cakec_only, tmp_path, capsys):
    compiler = Compiler(cakec_only)
    database = str(tmp_path / "runs.db")
    _synthetic_record(database, compiler, 1.0)
    output, report_file = tmp_path / "refit.json", tmp_path / "report.json"
    status = calibrate_main(["--record", database, "--machine", PRIOR, "--output", str(output),
                             "--report", str(report_file), "--cakec", cakec_only, "--source-root", REPO])
    report = json.loads(report_file.read_text())
    assert status == 1 and not report["accepted"] and not output.exists()
    assert report["held_out_after"]["mean_abs_log_error"] >= report["held_out_before"]["mean_abs_log_error"]
    text = capsys.readouterr().out
    assert "rejected: held-out error" in text and "row_softmax" in text and "vector_add" in text
    empty = str(tmp_path / "empty.db")
    RunRecord(empty).close()
    assert calibrate_main(["--record", empty, "--machine", PRIOR, "--cakec", cakec_only]) == 2


def test_machine_names_resolve_where_cakec_finds_them(monkeypatch):
    """`--machine h200` without $CAKE_MACHINES_DIR: the source tree's machines/ (an installed package: its
    share/cake/machines), as cakec resolves it; an unknown name lists the folders searched."""
    monkeypatch.delenv("CAKE_MACHINES_DIR", raising=False)
    path = calibration.machine_path("h200")
    assert os.path.basename(path) == "h200.json" and os.path.isfile(path)
    with pytest.raises(FileNotFoundError, match="no machine description 'no-such-gpu'"):
        calibration.machine_path("no-such-gpu")
