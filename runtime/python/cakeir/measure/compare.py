"""Comparing an output with its reference: what survived the poison, what is wrong, what is stale.

One rule for both backends (the GPU backend computes the same figures with torch): with r the reference in
float64 and o the output,
  - survivors: elements still holding the poison (NaN, or INT_SENTINEL for integers) - never written;
  - wrong: written elements with |o - r| > OUTLIER_FACTOR * tolerance * rms(r) + 2 ulp(dtype) * |r|
    (one wrong element fails the check even when the norm would average it away), NaN where r is not;
  - stale: wrong elements equal to what the output held before the run (when the run started from stale
    values, not poison) - the candidate left them as they were;
  - rel_err: ||o - r|| / ||r|| over the written elements; it must be <= tolerance.
ok means no survivor, nothing wrong and rel_err <= tolerance."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional

from .host_tensor import HostTensor, is_poison

OUTLIER_FACTOR = 10.0
ULP = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f32": 2.0 ** -24, "f64": 2.0 ** -53}


@dataclass
class Comparison:
    total: int
    survivors: int
    wrong: int
    stale: int
    rel_err: float
    max_abs_err: float
    tolerance: float

    @property
    def ok(self) -> bool:
        return self.survivors == 0 and self.wrong == 0 and math.isfinite(self.rel_err) and \
            self.rel_err <= self.tolerance

    def to_json(self) -> Dict[str, Any]:
        return {"total": self.total, "survivors": self.survivors, "wrong": self.wrong, "stale": self.stale,
                "rel_err": self.rel_err, "max_abs_err": self.max_abs_err, "tolerance": self.tolerance,
                "ok": self.ok}


def compare_host(out: HostTensor, ref: HostTensor, tolerance: float,
                 before: Optional[HostTensor] = None) -> Comparison:
    """The comparison of a host output with its reference; `before` is what the output held before the run
    when that was not poison (the stale check)."""
    count = len(ref.values)
    ref_sq = sum(float(r) * float(r) for r in ref.values)
    rms = math.sqrt(ref_sq / max(count, 1))
    ulp = ULP.get(out.dtype, 0.0)
    survivors = wrong = stale = 0
    diff_sq, max_abs = 0.0, 0.0
    for i, (o, r) in enumerate(zip(out.values, ref.values)):
        if is_poison(out.dtype, o) and not is_poison(out.dtype, r):
            survivors += 1
            continue
        if isinstance(o, float) and math.isnan(o):
            bad, d = not math.isnan(float(r)), 0.0
        else:
            d = abs(float(o) - float(r))
            bad = d > OUTLIER_FACTOR * tolerance * rms + 2.0 * ulp * abs(float(r))
        diff_sq += d * d
        max_abs = max(max_abs, d)
        if bad:
            wrong += 1
            if before is not None and float(before.values[i]) == float(o):
                stale += 1
    ref_norm = math.sqrt(ref_sq)
    rel = math.sqrt(diff_sq) / ref_norm if ref_norm > 0 else math.sqrt(diff_sq)
    return Comparison(total=count, survivors=survivors, wrong=wrong, stale=stale, rel_err=rel,
                      max_abs_err=max_abs, tolerance=tolerance)
