"""The physical floor of a run: the least time its compulsory work can take on a machine.

A machine description (machines/<name>.json, the cost model's files) gives the peaks: HBM bandwidth
(hbm_bytes_per_s), L2 bandwidth (l2_bytes_per_s), and the tensor and FP32 rates from
tensor_flops_per_clk_per_sm and fp32_lanes_per_clk_per_sm (one FMA = 2 flops per lane) x sms x clock_ghz.
For the compulsory work of a problem (cakeir.measure.problem.Work):

    floor = max(read_bytes / hbm,  (read_bytes + write_bytes) / l2,  tensor_flops / tensor peak,
                fp32_flops / fp32 peak)

Reads are charged at HBM bandwidth because the service flushes L2 before every timed run; writes only at L2
bandwidth, because a write-back L2 may hold them when the end event fires.  Peaks, not the calibrated
efficiencies: a time below the floor is impossible, not merely unlikely, so it is a failed measurement or a
kernel that did not do the work - never a record (docs/measurement.md)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Dict, Optional

from .problem import Work

REPO_MACHINES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))), "machines")
PACKAGE_MACHINES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "share", "cake", "machines")


def machines_dirs() -> list:
    dirs = [os.environ["CAKE_MACHINES_DIR"]] if os.environ.get("CAKE_MACHINES_DIR") else []
    return dirs + [PACKAGE_MACHINES, REPO_MACHINES]


@dataclass(frozen=True)
class Machine:
    name: str
    hbm_bytes_per_s: float
    l2_bytes_per_s: float
    tensor_flops_per_s: float
    fp32_flops_per_s: float

    @staticmethod
    def from_json(doc: Dict[str, Any]) -> "Machine":
        clock = float(doc["clock_ghz"]) * 1e9
        sms = float(doc["sms"])
        return Machine(name=str(doc.get("name", "?")), hbm_bytes_per_s=float(doc["hbm_bytes_per_s"]),
                       l2_bytes_per_s=float(doc.get("l2_bytes_per_s", doc["hbm_bytes_per_s"])),
                       tensor_flops_per_s=float(doc["tensor_flops_per_clk_per_sm"]) * sms * clock,
                       fp32_flops_per_s=2.0 * float(doc["fp32_lanes_per_clk_per_sm"]) * sms * clock)

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "hbm_bytes_per_s": self.hbm_bytes_per_s, "l2_bytes_per_s": self.l2_bytes_per_s,
                "tensor_flops_per_s": self.tensor_flops_per_s, "fp32_flops_per_s": self.fp32_flops_per_s}


def load_machine(name_or_path: str = "h200") -> Machine:
    """machines/<name>.json ($CAKE_MACHINES_DIR, the package's share/cake/machines, the source tree's
    machines/), or a path to such a file."""
    candidates = [name_or_path] if name_or_path.endswith(".json") else \
        [os.path.join(d, name_or_path + ".json") for d in machines_dirs()]
    for path in candidates:
        if os.path.isfile(path):
            with open(path) as f:
                return Machine.from_json(json.load(f))
    raise FileNotFoundError("no machine description %s (looked at %s)" % (name_or_path, ", ".join(candidates)))


@dataclass(frozen=True)
class Floor:
    ms: float
    bound: str                     # which term set it: hbm, l2, tensor or fp32
    terms_ms: Dict[str, float]

    def to_json(self) -> Dict[str, Any]:
        return {"ms": self.ms, "bound": self.bound, "terms_ms": dict(self.terms_ms)}


def floor(work: Work, machine: Machine) -> Floor:
    terms = {"hbm": work.read_bytes / machine.hbm_bytes_per_s * 1e3,
             "l2": (work.read_bytes + work.write_bytes) / machine.l2_bytes_per_s * 1e3,
             "tensor": work.tensor_flops / machine.tensor_flops_per_s * 1e3,
             "fp32": work.fp32_flops / machine.fp32_flops_per_s * 1e3}
    bound = max(terms, key=lambda k: terms[k])
    return Floor(ms=terms[bound], bound=bound, terms_ms=terms)


def below_floor(ms: Optional[float], work: Work, machine: Machine) -> bool:
    return ms is not None and ms < floor(work, machine).ms
