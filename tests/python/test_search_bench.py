"""bench/search_gemm.py without a GPU: the module imports without torch, its report helpers (summary against
the hand-written variants, the best-so-far SVG) work on a search result, and the k-means family's search runs
end to end with the cost model as the timer (--family kmeans --measure predicted)."""

import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load():
    spec = importlib.util.spec_from_file_location("search_gemm", os.path.join(REPO, "bench", "search_gemm.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_imports_without_torch_and_reports():
    had_torch = "torch" in sys.modules
    bench = _load()
    assert had_torch or "torch" not in sys.modules
    result = {"fitness": "measured", "shapes": ["K=4,M=4,N=4", "K=8,M=8,N=8"], "budget": 3,
              "best": {"measured_ms": [1.0, 4.0], "fitness_ms": 2.0}, "seed": {"measured_ms": [2.0, 8.0]},
              "counts": {"measured_total": 3, "generated": 20}, "pruning_ratio": 0.9, "stop": "budget",
              "curve": [{"measured": 1, "best_ms": 4.0}, {"measured": 2, "best_ms": 3.0}, {"measured": 3, "best_ms": 2.0}]}
    references = [{"passed": True, "times_ms": [1.1, 3.6]}, {"passed": False, "times_ms": [0.1, 0.1]}]
    summary = bench.summarize(result, references, ["M=4,N=4,K=4", "M=8,N=8,K=8"])
    assert [row["speed_vs_hand_written"] for row in summary["shapes"]] == [1.1, 0.9]
    assert summary["speed_vs_hand_written_geomean"] == round((1.1 * 3.6) ** 0.5 / 2.0, 4)
    svg = bench.svg_chart(result, summary["best_hand_written_geomean_ms"])
    assert svg.startswith("<svg") and "best hand-written" in svg and svg.count("<polyline") == 1


def test_kmeans_search_end_to_end_with_the_cost_model_as_timer(cakec_only, tmp_path, monkeypatch):
    """--family kmeans --measure predicted: from the naive seed, one generation reaches the tensor-core member
    (rng seed 1 draws a structural tactic); the hand-written kernel is the reference, everything is recorded."""
    import json
    import sqlite3
    bench = _load()
    out = tmp_path / "out"
    # the fixture's cakec: under the sanitizer pass a wrapper that keeps the preloaded ASan runtime away from ptxas
    monkeypatch.setenv("CAKE_CAKEC", cakec_only)
    assert bench.main(["--family", "kmeans", "--out", str(out), "--measure", "predicted", "--budget", "2",
                       "--offspring", "1", "--seed", "1", "--cakec-timeout", "120",
                       "--work-dir", str(tmp_path / "work"), "--pack", str(tmp_path / "no-pack")]) == 0
    result = json.loads((out / "search.json").read_text())
    assert result["fitness"] == "predicted" and result["seed"]["label"] == "naive"
    assert result["counts"]["measured_total"] == 2 and result["stop"] == "budget"
    assert result["best"]["label"].startswith("fused_wgmma") and result["improvement"] > 100
    summary = json.loads((out / "summary.json").read_text())
    assert [row["shape"] for row in summary["shapes"]] == bench.PROBLEMS["kmeans"].shapes
    assert all(0.5 < row["speed_vs_hand_written"] <= 1.5 for row in summary["shapes"])
    with sqlite3.connect(str(out / "runs.db")) as db:
        rows = db.execute("SELECT kernel, producer FROM candidates ORDER BY id").fetchall()
    assert rows[0] == ("kmeans_assign", "hand-written")
    assert rows[1] == ("kmeans_assign_naive", "seed") and rows[2][0] == "kmeans_assign"
    assert rows[2][1].startswith("tactic:")
    assert (out / "best_so_far.svg").read_text().startswith("<svg")
