"""The harness's evaluate step against the built cakec (cakeir.harness.evaluate, compiler): stages stop at the
first failure, nothing is written beside the source, the time limit, and the work folder's layout."""

import os

from cakeir.harness import Compiler, RunRecord, evaluate

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(REPO, "samples", "vector_add.cake")


def test_a_failing_estimate_stops_the_evaluation(cakec_only, tmp_path):
    source = tmp_path / "src" / "k.cake"
    source.parent.mkdir()
    source.write_text(open(SAMPLE).read())
    with RunRecord(str(tmp_path / "runs.db")) as record:
        summary = evaluate(Compiler(cakec_only), source.read_text(), shape="M=3", record=record, producer="test")
        assert not summary["ok"] and summary["failed_stage"] == "estimate"
        assert summary["failure_signature"] == "estimate:E0802:-"
        assert [s["stage"] for s in summary["stages"]] == ["verify", "estimate"]
        stored = record.candidate(summary["candidate"], full=True)
        assert [(s["stage"], s["ok"], s["shape"]) for s in stored["stages"]] == [("verify", True, ""),
                                                                                ("estimate", False, "M=3")]
        assert stored["stages"][0]["compiler_version"].startswith("cakec ")
    assert os.listdir(str(source.parent)) == ["k.cake"]


def test_work_folder_keeps_each_variants_outputs(cakec_only, tmp_path):
    text = open(SAMPLE).read()
    compiler = Compiler(cakec_only)
    first = evaluate(compiler, text, {"THREADS": 64}, work_dir=str(tmp_path))
    second = evaluate(compiler, text, {"THREADS": 128}, work_dir=str(tmp_path))
    assert first["ok"] and second["ok"] and first["candidate"] is None  # no record given: nothing recorded
    assert len(os.listdir(str(tmp_path))) == 2
    if "compile" not in first["skipped"]:
        manifest = first["stages"][-1]["output"]["manifest"]
        assert manifest["kernels"][0]["ct_params"] == {"THREADS": 64}
        assert os.path.isfile(first["stages"][-1]["output"]["cubin"])


def test_a_stage_past_its_time_limit_fails_as_timeout(cakec_only):
    compiler = Compiler(cakec_only, timeout=0.001)
    summary = evaluate(compiler, open(SAMPLE).read())
    assert summary["failure_signature"] == "verify:timeout:-" and summary["stages"][0]["timed_out"]
