"""bench/search_gemm.py without a GPU: the module imports without torch, and its report helpers (summary
against the hand-written variants, the best-so-far SVG) work on a search result."""

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
