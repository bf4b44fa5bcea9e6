"""cakeir.interpret: kernels on the CPU interpreter from Python (NumPy in and out), and failed runs as
InterpreterError with cakec's diagnostics.  Needs NumPy and cakec."""

import os

import pytest

np = pytest.importorskip("numpy", reason="cakeir.interpret needs NumPy")

from cakeir import interpret  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTOR_ADD = os.path.join(REPO, "samples", "vector_add.cake")


def test_vector_add_matches_numpy_bf16_rounding(cakec_only):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    out = interpret.run(VECTOR_ADD, inputs={"A": a, "B": b}, outputs=["C"], cakec=cakec_only)
    c = out["C"]
    assert c.shape == (1000,) and c.dtype == np.float32
    # bf16 inputs, a bf16 sum: within one bf16 rounding of the float32 sum of the rounded inputs.
    assert np.allclose(c, a + b, rtol=2 ** -7, atol=2 ** -7)
    assert not np.array_equal(c, np.zeros_like(c))


def test_every_schedule_and_the_compile_time_parameter(cakec_only):
    a = np.arange(120, dtype=np.float32)          # 2a is exact in bf16 below 256
    out = interpret.run(VECTOR_ADD, inputs={"A": a, "B": a}, outputs=["C"], defines={"THREADS": 64}, seed=5,
                        schedules=3, cakec=cakec_only)
    assert np.array_equal(out["C"], 2 * a)


def test_a_failed_run_raises_with_the_diagnostics(tmp_path, cakec_only):
    src = tmp_path / "oob.cake"
    src.write_text("target sm_80;\nkernel k(X: f32[N], Y: f32[N]) grid(1) threads(32) {\n"
                   "  Y[i32(tid.x) + 40] = X[0];\n}\n")
    with pytest.raises(interpret.InterpreterError) as info:
        interpret.run(str(src), inputs={"X": np.zeros(8, np.float32)}, outputs=["Y"], cakec=cakec_only)
    error = info.value
    assert error.returncode == 1
    assert [d["code"] for d in error.diagnostics] == ["E0901"]
    assert error.diagnostics[0]["line"] == 3
    assert "out of bounds" in str(error) and "[E0901]" in str(error)
