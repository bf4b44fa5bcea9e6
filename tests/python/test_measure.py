"""The measurement service's adversarial self-test on the CPU (cakeir.measure, interpreter backend): every
cheating candidate of tests/measure/cheats/ is caught and classified as its file says, and the honest kernel
(samples/vector_add.cake) passes.  Also: the floor against machines/h200.json, the .npy round trip, the
classification names, and that the GPU backend imports without torch."""

import importlib
import math
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tests", "measure", "cheats"))

import suite  # noqa: E402

from cakeir import measure  # noqa: E402
from cakeir.measure import Classification, InterpreterBackend, Work  # noqa: E402


@pytest.fixture(scope="module")
def results(_cakec_path):
    if not _cakec_path or not os.path.isfile(_cakec_path):
        pytest.skip("CAKE_CAKEC is not set or not built")
    backend = InterpreterBackend(cakec=_cakec_path)
    problem = suite.problem(suite.CPU_SIZES)
    out = {}
    for candidate, expected in suite.candidates(problem):
        out[candidate.name] = (measure.measure(problem, candidate, backend, seed=4242), expected)
    backend.close()
    return out


CHEATS = ["partial_write", "shape_special_case", "modifies_input", "stale_output", "untimed_work", "below_floor"]


def test_honest_kernel_passes(results):
    result, _ = results["honest"]
    assert result.ok, [f.detail for f in result.findings]
    assert result.verdict is None
    assert len(result.shapes) == 4 and all(len(s.trials) == 3 for s in result.shapes)


@pytest.mark.parametrize("name", CHEATS)
def test_cheat_is_caught_and_classified(results, name):
    result, expected = results[name]
    assert not result.ok
    assert result.verdict is not None and result.verdict.value == expected, result.summary()


def test_stale_output_passes_the_poisoned_trials(results):
    """NaN poison alone does not catch it: only the stale trial does."""
    result, _ = results["stale_output"]
    assert {f.check for f in result.findings} == {"stale_fill"}
    for shape in result.shapes:
        assert all(t.comparisons["C"]["ok"] for t in shape.trials if t.kind != "stale")


def test_shape_special_case_is_right_at_the_tuning_shape(results):
    result, _ = results["shape_special_case"]
    tuning = [s for s in result.shapes if s.tuning]
    assert len(tuning) == 1 and tuning[0].ok
    assert not any(s.ok for s in result.shapes if not s.tuning)


def test_untimed_work_is_seen_three_ways(results):
    result, _ = results["untimed_work"]
    assert {f.check for f in result.findings} == {"launch_plan", "stream_order", "pending_at_end"}
    # its outputs are right once everything finished: no output classification
    assert result.classifications == {Classification.UNTIMED_WORK}


def test_modified_input_is_named(results):
    result, _ = results["modifies_input"]
    assert any(f.check == "inputs_untouched" and "B" in f.detail for f in result.findings)


def test_result_record_is_json(results):
    import json
    result, _ = results["below_floor"]
    doc = json.loads(json.dumps(result.to_json()))
    assert doc["verdict"] == "below_floor" and doc["findings"][0]["figures"]["claimed_ms"] > 0


def test_classification_names_are_stable():
    assert [c.value for c in measure.PRECEDENCE] == ["input_modified", "untimed_work", "shape_special_case",
                                                     "stale_output", "partial_output", "wrong_result",
                                                     "below_floor"]


def test_floor_against_h200():
    machine = measure.load_machine("h200")
    assert machine.hbm_bytes_per_s == 4.8e12
    work = Work(read_bytes=4.8e9, write_bytes=2.4e9)
    f = measure.floor(work, machine)
    assert f.bound == "hbm" and math.isclose(f.ms, 1.0)
    gemm = Work(read_bytes=2 * 2 * 4096 * 4096, write_bytes=2 * 4096 * 4096, tensor_flops=2 * 4096.0 ** 3)
    f = measure.floor(gemm, machine)
    assert f.bound == "tensor" and math.isclose(f.ms, 2 * 4096.0 ** 3 / (4096 * 132 * 1.98e9) * 1e3)


def test_gpu_backend_imports_without_torch():
    module = importlib.import_module("cakeir.measure.gpu")
    assert module.GpuBackend.can_time


def test_wrong_values_are_wrong_result(_cakec_path):
    """Every element written, values off (the reference here is A + B + 1): wrong_result, not a cheat class."""
    if not _cakec_path or not os.path.isfile(_cakec_path):
        pytest.skip("CAKE_CAKEC is not set or not built")
    problem = suite.problem({"tuning": 1024, "others": [1000]})
    problem.reference_host = lambda x, s: {"C": [a + b + 1.0 for a, b in zip(x["A"].values, x["B"].values)]}
    honest = suite.candidates(problem)[0][0]
    backend = InterpreterBackend(cakec=_cakec_path)
    result = measure.measure(problem, honest, backend)
    backend.close()
    assert result.classifications == {Classification.WRONG_RESULT}
    assert all(not s.ok for s in result.shapes)


def test_device_build_step(_cakec_path, tmp_path):
    """bench/measure_selftest.py --build: a cubin per candidate, the shape special case tuned to the device
    tuning N, the runtime library beside them (what the device run loads)."""
    import json
    import subprocess
    from cakeir._tools import find_ptxas
    if not _cakec_path or not os.path.isfile(_cakec_path):
        pytest.skip("CAKE_CAKEC is not set or not built")
    if find_ptxas() is None:
        pytest.skip("no ptxas")
    env = dict(os.environ, CAKE_CAKEC=_cakec_path)
    run = subprocess.run([sys.executable, os.path.join(REPO, "bench", "measure_selftest.py"), "--build",
                          str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, check=False)
    out = run.stdout.decode()
    if run.returncode != 0 and "no libcake_runtime.so" in out:
        pytest.skip("no libcake_runtime.so built")
    assert run.returncode == 0, out
    names = [c.name for c, _ in suite.candidates(suite.problem(suite.DEVICE_SIZES))]
    for name in names:
        assert (tmp_path / (name + ".cubin")).is_file() and (tmp_path / (name + ".cubin.json")).is_file()
    manifest = json.loads((tmp_path / "shape_special_case.cubin.json").read_text())
    assert manifest["kernels"][0]["ct_params"]["TUNED_N"] == suite.DEVICE_SIZES["tuning"]
    assert (tmp_path / "libcake_runtime.so").is_file()


def test_results_go_into_the_harness_run_record(results, tmp_path):
    """record_measurement: one correctness row per shape; a rejected candidate fails every row it records."""
    from cakeir.harness.record import RunRecord
    record = RunRecord(str(tmp_path / "run.sqlite"))
    ids = {}
    for name in ("honest", "untimed_work"):
        result, _ = results[name]
        with open(result.record["source"]) as f:
            ids[name] = record.add_candidate(f.read(), kernel="vector_add", producer="test")
        rows = measure.record_measurement(record, ids[name], result, kernel="vector_add")
        assert len(rows) == len(result.shapes)          # no timing on the interpreter
    honest = record.candidate(ids["honest"], full=True)["correctness"]
    cheat = record.candidate(ids["untimed_work"], full=True)["correctness"]
    assert len(honest) == 4 and all(row["passed"] for row in honest)
    assert len(cheat) == 4 and not any(row["passed"] for row in cheat)
    assert {row["shape"] for row in honest} == {"N=4096", "N=1000", "N=4103", "N=8200"}
