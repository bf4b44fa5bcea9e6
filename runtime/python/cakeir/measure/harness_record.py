"""Writing a measurement into the harness's run record (cakeir.harness.record.RunRecord, docs/harness.md).

record_measurement(record, candidate_id, result, kernel) adds one correctness row per checked shape and, only
when the candidate passed every check, one timing row for the timed shape:
  - correctness: passed = the shape's trials were right AND the measurement has no finding at all (a
    candidate rejected for untimed work, a shape special case or a time below the floor fails every row it
    records, so the record's best() never ranks it); method "measure:<backend>"; max abs / rel error and
    the wrong + surviving elements over the shape's trials; detail: the verdict, the findings at that shape
    and the candidate-level ones, the seeds.
  - timing: the median in ms, the GPU and its clocks, the first peer and its median, the measurement's seed;
    detail: every function's timing, the floor, the work.
A rejected time is never written: measurement.md says a time below the floor, or one that did not see all
the work, is never a record."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from .result import MeasurementResult


def _clock_mhz(text: Any) -> Optional[float]:
    try:
        return float(str(text).split()[0])
    except (ValueError, IndexError):
        return None


def record_measurement(record: Any, candidate_id: int, result: MeasurementResult, kernel: str = "") -> List[int]:
    """The row ids written (correctness rows, then the timing row when there is one)."""
    rows: List[int] = []
    verdict = result.verdict
    whole = [f.to_json() for f in result.findings if f.shape is None]
    for shape in result.shapes:
        comparisons = [c for t in shape.trials for c in t.comparisons.values()]
        detail: Dict[str, Any] = {
            "verdict": None if verdict is None else verdict.value,
            "findings": [f.to_json() for f in result.findings if f.shape == shape.label] + whole,
            "seeds": [t.seed for t in shape.trials], "tuning": shape.tuning, "floor": shape.floor}
        rows.append(record.add_correctness(
            candidate_id, shape.ok and result.ok, kernel=kernel, shape=shape.sizes,
            max_abs_error=max((c["max_abs_err"] for c in comparisons), default=None),
            max_rel_error=max((c["rel_err"] for c in comparisons), default=None),
            mismatches=sum(c["wrong"] + c["survivors"] for c in comparisons),
            method="measure:%s" % result.backend.get("backend", "?"), detail=detail))
    timing = result.timing
    if result.ok and timing and result.candidate in timing.get("functions", {}):
        functions = timing["functions"]
        mine = functions[result.candidate]
        peers = [name for name in functions if name != result.candidate]
        gpus = (result.backend.get("clocks") or {}).get("gpus") or [{}]
        sizes = next((s.sizes for s in result.shapes if s.label == timing.get("shape")), timing.get("shape"))
        rows.append(record.add_timing(
            candidate_id, mine["ms"], kernel=kernel, shape=sizes, gpu=str(result.backend.get("device", "")),
            sm_clock_mhz=_clock_mhz(gpus[0].get("clocks.sm")), mem_clock_mhz=_clock_mhz(gpus[0].get("clocks.mem")),
            peer=peers[0] if peers else "", peer_time_ms=functions[peers[0]]["ms"] if peers else None,
            seed=result.seed, detail={"functions": functions, "floor": timing.get("floor"), "work": timing.get("work")}))
    return rows
