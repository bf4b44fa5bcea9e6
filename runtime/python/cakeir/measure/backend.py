"""The operations the measurement service needs from a place that runs kernels (cakeir.measure.service).

A backend owns tensors of its own kind (host lists for the interpreter, torch tensors on the GPU) and offers:
fresh seeded inputs, poisoned or stale-filled outputs, copies, bitwise equality, the reference, one run of a
candidate's launch plan with what the evaluator could see at the end of the timed region, a device-wide
synchronization, the comparison (cakeir.measure.compare's rule) and - where it can - timing.

Run observation: `run` executes the plan's launches on their streams and returns (1) the outputs as read
in the timed stream's order right after the timed region ends (before any device-wide synchronization) and
(2) what was still pending then (a count of launches, or milliseconds a device-wide synchronization took).
The service compares (1) with the outputs after synchronize() to find work the timer did not see."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional

from .compare import Comparison
from .problem import Candidate, Problem, Shape


@dataclass
class RunObservation:
    snapshot: Dict[str, Any]          # output name -> its contents at the end of the timed region
    pending: float                    # work still pending then (pending_unit)
    pending_unit: str                 # "launches" (interpreter) or "ms" (GPU: device-wide sync time)
    pending_limit: float              # above this, work ran outside the timed region


@dataclass
class Timing:
    """Times of one function in ms over all timed runs (L2 flushed before each), with its samples."""

    ms: float
    ms_min: float
    ms_p10: float
    ms_p90: float
    samples_ms: List[float] = field(default_factory=list)
    host_us: Optional[float] = None

    def to_json(self) -> Dict[str, Any]:
        return {"ms": self.ms, "ms_min": self.ms_min, "ms_p10": self.ms_p10, "ms_p90": self.ms_p90,
                "iters": len(self.samples_ms), "host_us": self.host_us,
                "samples_ms": [round(v, 6) for v in self.samples_ms]}


class Backend(abc.ABC):
    name = "?"
    can_time = False

    @abc.abstractmethod
    def prepare(self, problem: Problem, candidate: Candidate) -> Any:
        """Whatever run() needs for the candidate (compiled module, checked source)."""

    @abc.abstractmethod
    def random_inputs(self, problem: Problem, shape: Shape, seed: int) -> Dict[str, Any]:
        """Fresh values for every input (never zeros), from the seed."""

    @abc.abstractmethod
    def poisoned_outputs(self, problem: Problem, shape: Shape) -> Dict[str, Any]:
        """Freshly allocated outputs filled with the poison."""

    @abc.abstractmethod
    def stale_outputs(self, problem: Problem, shape: Shape, values: Mapping[str, Any]) -> Dict[str, Any]:
        """Freshly allocated outputs holding `values` (a previous trial's reference) in the outputs' dtypes."""

    @abc.abstractmethod
    def clone(self, tensor: Any) -> Any:
        ...

    @abc.abstractmethod
    def bit_equal(self, a: Any, b: Any) -> bool:
        ...

    @abc.abstractmethod
    def reference(self, problem: Problem, inputs: Mapping[str, Any], shape: Shape) -> Dict[str, Any]:
        """The problem's reference of every output, computed on `inputs` (copies)."""

    @abc.abstractmethod
    def run(self, prepared: Any, problem: Problem, candidate: Candidate, tensors: Dict[str, Any],
            shape: Shape) -> RunObservation:
        """One run of the candidate's launch plan on `tensors` (inputs and outputs by name)."""

    @abc.abstractmethod
    def synchronize(self) -> None:
        """Device-wide: every launch of every stream has finished (and its writes are visible)."""

    @abc.abstractmethod
    def compare(self, out: Any, ref: Any, tolerance: float, before: Optional[Any] = None) -> Comparison:
        ...

    def time(self, functions: Mapping[str, Callable[[], None]], before_each: Callable[[], None]) -> Dict[str, Timing]:
        """Interleaved timing of every function (docs/measurement.md); backends without a clock refuse."""
        raise NotImplementedError("the %s backend does not time kernels" % self.name)

    def timed_run(self, prepared: Any, problem: Problem, candidate: Candidate, tensors: Dict[str, Any],
                  shape: Shape) -> Callable[[], None]:
        """A zero-argument callable doing one run of the plan on `tensors` (what time() brackets)."""
        raise NotImplementedError("the %s backend does not time kernels" % self.name)

    def peer_runs(self, problem: Problem, tensors: Dict[str, Any], shape: Shape) -> Dict[str, Callable[[], None]]:
        return {}

    def poison(self, outputs: Mapping[str, Any]) -> None:
        """Fills existing outputs with the poison again (before each timed run)."""
        raise NotImplementedError

    def describe(self) -> Dict[str, Any]:
        return {"backend": self.name}

    def close(self) -> None:
        """Releases what the backend holds (temporary folders, buffers)."""
