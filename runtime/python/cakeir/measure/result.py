"""The record of one measurement: every trial, every finding, the times and floors, and the verdict.

MeasurementResult.verdict is the most specific finding's classification (classification.PRECEDENCE) or None
when the candidate passed every check; `ok` says the same.  to_json() is the full record (the protocol's
"record everything": seeds, shapes, every comparison, every timing sample, the machine, the backend)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set

from .classification import PRECEDENCE, Classification, Finding


@dataclass
class Trial:
    """One run of the candidate on fresh inputs: how it started (poisoned outputs, candidate or reference
    first; or stale outputs), what the comparisons and the run observation said."""

    kind: str                        # candidate_first | reference_first | stale | after_timing
    seed: int
    comparisons: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    inputs_changed: List[str] = field(default_factory=list)
    written_after_timed_region: List[str] = field(default_factory=list)
    pending: float = 0.0
    pending_unit: str = ""

    def to_json(self) -> Dict[str, Any]:
        return {"kind": self.kind, "seed": self.seed, "comparisons": self.comparisons,
                "inputs_changed": self.inputs_changed,
                "written_after_timed_region": self.written_after_timed_region,
                "pending": self.pending, "pending_unit": self.pending_unit}


@dataclass
class ShapeReport:
    label: str
    sizes: Dict[str, int]
    tuning: bool
    floor: Dict[str, Any]
    trials: List[Trial] = field(default_factory=list)
    ok: bool = True

    def to_json(self) -> Dict[str, Any]:
        return {"label": self.label, "sizes": self.sizes, "tuning": self.tuning, "floor": self.floor,
                "ok": self.ok, "trials": [t.to_json() for t in self.trials]}


@dataclass
class MeasurementResult:
    problem: str
    candidate: str
    backend: Dict[str, Any]
    seed: int
    machine: Dict[str, Any]
    shapes: List[ShapeReport] = field(default_factory=list)
    findings: List[Finding] = field(default_factory=list)
    timing: Dict[str, Any] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    record: Dict[str, Any] = field(default_factory=dict)     # the candidate as measured: source hash, defines, plan

    @property
    def classifications(self) -> Set[Classification]:
        return {f.classification for f in self.findings}

    @property
    def verdict(self) -> Optional[Classification]:
        found = self.classifications
        for c in PRECEDENCE:
            if c in found:
                return c
        return None

    @property
    def ok(self) -> bool:
        return not self.findings

    def add(self, finding: Finding) -> None:
        self.findings.append(finding)

    def summary(self) -> str:
        verdict = self.verdict
        text = "%-24s %s" % (self.candidate, "ok" if verdict is None else verdict.value)
        others = sorted(c.value for c in self.classifications if c != verdict)
        if others:
            text += " (also: %s)" % ", ".join(others)
        return text

    def to_json(self) -> Dict[str, Any]:
        verdict = self.verdict
        return {"problem": self.problem, "candidate": self.candidate, "backend": self.backend, "seed": self.seed,
                "machine": self.machine, "verdict": None if verdict is None else verdict.value, "ok": self.ok,
                "classifications": sorted(c.value for c in self.classifications),
                "findings": [f.to_json() for f in self.findings], "shapes": [s.to_json() for s in self.shapes],
                "timing": self.timing, "notes": list(self.notes), "record": self.record}
