"""bench/interp_vs_device.py prepare: the interpreter's outputs and the cubins the GPU comparison runs, for two
cases whose results are known exactly (a bf16 add, a TMA copy)."""

import json
import os
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy", reason="cakeir.interpret needs NumPy")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "bench", "interp_vs_device.py")


def test_prepare_writes_inputs_interpreter_outputs_and_cubins(tmp_path, cakec_only):
    env = dict(os.environ, CAKE_CAKEC=cakec_only)
    run = subprocess.run([sys.executable, SCRIPT, "prepare", "--out", str(tmp_path), "--cases",
                          "vector_add,tma_copy"], env=env, capture_output=True, text=True)
    if run.returncode != 0 and "3: no ptxas" in run.stderr and "exited 3" in run.stderr:
        pytest.skip("no ptxas: " + run.stderr.strip())
    assert run.returncode == 0, run.stderr
    cases = json.load(open(tmp_path / "cases.json"))["cases"]
    assert [c["name"] for c in cases] == ["vector_add", "tma_copy"]
    add_in = np.load(tmp_path / "vector_add" / "inputs.npz")
    add_out = np.load(tmp_path / "vector_add" / "interp.npz")
    # bf16 inputs; the sum rounded once to bf16 is within one bf16 step of the float32 sum
    assert np.allclose(add_out["C"], add_in["A"] + add_in["B"], rtol=2 ** -7, atol=2 ** -7)
    copy_in = np.load(tmp_path / "tma_copy" / "inputs.npz")
    copy_out = np.load(tmp_path / "tma_copy" / "interp.npz")
    assert np.array_equal(copy_out["Out"], copy_in["In"])
    assert (tmp_path / "tma_copy" / "tma_copy.cubin").stat().st_size > 0
    manifest = json.load(open(tmp_path / "tma_copy" / "tma_copy.cubin.json"))
    assert "sm_90a" in json.dumps(manifest)          # built for the H200 by default


def test_an_unknown_case_is_refused(tmp_path, cakec_only):
    run = subprocess.run([sys.executable, SCRIPT, "prepare", "--out", str(tmp_path), "--cases", "nope"],
                         env=dict(os.environ, CAKE_CAKEC=cakec_only), capture_output=True, text=True)
    assert run.returncode != 0 and "unknown case(s) nope" in run.stderr
