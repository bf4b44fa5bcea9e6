"""Why a measurement was rejected: the classifications of the measurement service and one finding.

Each rejection the service makes (cakeir.measure.service) is a Finding: a Classification with a stable name
(the enum's value, used in JSON records and by the harness), the shape it was seen at and a sentence of
evidence.  A result's verdict is its most specific finding (PRECEDENCE, first wins): a modified input
explains any wrong output that follows, work outside the timed region explains a time below the floor, and
a candidate that is right at the tuning shape only is a shape special case whatever its other shapes show."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Dict, Optional


class Classification(str, enum.Enum):
    """The ways a candidate fails the protocol (docs/measurement.md, "Classifications")."""

    INPUT_MODIFIED = "input_modified"          # an input's bytes differ after the candidate ran
    UNTIMED_WORK = "untimed_work"              # work outside the timed stream / region
    SHAPE_SPECIAL_CASE = "shape_special_case"  # right at the tuning shape, wrong at another
    STALE_OUTPUT = "stale_output"              # relies on what the output memory held before the run
    PARTIAL_OUTPUT = "partial_output"          # leaves part of the poisoned output unwritten
    WRONG_RESULT = "wrong_result"              # writes every element, some of them wrong
    BELOW_FLOOR = "below_floor"                # a time below the physical floor of its bytes and flops


PRECEDENCE = [Classification.INPUT_MODIFIED, Classification.UNTIMED_WORK, Classification.SHAPE_SPECIAL_CASE,
              Classification.STALE_OUTPUT, Classification.PARTIAL_OUTPUT, Classification.WRONG_RESULT,
              Classification.BELOW_FLOOR]


@dataclass
class Finding:
    """One rejection: what (classification), where (the shape's label, or None for the whole candidate),
    which check saw it and its evidence (a sentence, and figures for the record)."""

    classification: Classification
    check: str
    detail: str
    shape: Optional[str] = None
    figures: Dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        return {"classification": self.classification.value, "check": self.check, "shape": self.shape,
                "detail": self.detail, "figures": dict(self.figures)}
