"""utils/interp_verify_corpus.py: the verifier corpus under the schedule explorer.  The corpus classification
(faulty kernels, fixed twins, accepted kernels) and a run over two pairs of small kernels: each faulty one
exposed, each twin clean under every schedule, and the figures the report prints."""

import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "utils"))

import interp_verify_corpus as corpus  # noqa: E402


def test_classification():
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        cases = {(c["file"], c["kernel"]): c for c in corpus.corpus()}
    finally:
        os.chdir(cwd)
    kinds = {c["kind"] for c in cases.values()}
    assert kinds == {"faulty", "twin", "accepted"}
    # X_fixed.cake next to X.cake
    fixed = cases[("tests/lit/verify/thread_syncwarp_other_warp_fixed.cake", "k")]
    assert fixed["kind"] == "twin" and fixed["twin_of"] == "tests/lit/verify/thread_syncwarp_other_warp.cake"
    assert cases[("tests/lit/verify/thread_syncwarp_other_warp.cake", "k")]["kind"] == "faulty"
    # named by the faulty files ("fixed twin: tmem_clean.cake")
    assert "tmem_read_before_commit.cake" in cases[("tests/lit/verify/tmem_clean.cake", "k")]["twin_of"]
    # a clean kernel next to a faulty one in the same file
    assert cases[("tests/lit/verify/remainder_symbolic_bound.cake", "scatter")]["kind"] == "twin"
    assert cases[("tests/lit/verify/remainder_symbolic_bound.cake", "scatter_past")]["kind"] == "faulty"
    # bench/faulty kernels and the samples they derive from
    assert cases[("bench/faulty/vector_add_no_tail.cake", "vector_add")]["kind"] == "faulty"
    assert cases[("samples/vector_add.cake", "vector_add")]["twin_of"] == "bench/faulty/vector_add_no_tail.cake"
    # a sample a faulty file says it derives from
    assert "tests/lit/verify/persistent_double_release.cake" in cases[("samples/hopper_gemm_persistent.cake", "hopper_gemm_persistent")]["twin_of"]
    # a RUN line expecting the verifier (with its rules) to reject the file
    assert cases[("tests/lit/verify/rules_tma_store_fence.cake", "k")]["kind"] == "faulty"
    assert cases[("tests/lit/verify/atomic_clean.cake", "sum")]["kind"] == "accepted"


def test_run(cakec_only, tmp_path):
    out = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, os.path.join(REPO, "utils", "interp_verify_corpus.py"), cakec_only,
                           "--schedules", "30", "--jobs", "2", "--timeout", "120", "--json", str(out),
                           "--filter", r"(thread_named_barrier_excludes_readers|tmem_read_before_commit|tmem_clean)"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    rows = {os.path.basename(r["file"]): r for r in json.loads(out.read_text())}
    assert set(rows) == {"thread_named_barrier_excludes_readers.cake", "thread_named_barrier_excludes_readers_fixed.cake",
                         "tmem_read_before_commit.cake", "tmem_clean.cake"}
    for name, row in rows.items():
        if row["kind"] == "faulty":
            assert row["outcome"] == "exposed", row
        else:
            assert row["kind"] == "twin" and row["outcome"] == "clean" and row["schedules"] == 30, row
    assert "- faulty kernels exposed: 2 / 2" in done.stdout
    assert "- fixed twins clean under all 30 schedules: 2 / 2" in done.stdout
    assert "- kernels the verifier accepts that the explorer exposed: 0" in done.stdout
