"""cakeir.measure: the honest measurement service (docs/measurement.md; protocol: fresh seeded inputs,
poisoned and stale outputs, inputs untouched, several shapes, stream-ordered readback, interleaved timing
with L2 flushed, the physical floor).

    from cakeir.measure import Problem, TensorSpec, Shape, Candidate, Launch, measure, InterpreterBackend
    result = measure(problem, candidate, InterpreterBackend())       # CPU: `cakec run`
    result = measure(problem, candidate, GpuBackend())               # device: torch + the cakeir runtime
    result.verdict        # None, or the Classification that rejects it (result.findings: all of them)
    record_measurement(run_record, candidate_id, result, kernel)     # into the harness's run record

The GPU backend (cakeir.measure.gpu) imports torch only when it is made, so this package imports without
torch or a GPU."""

from .backend import Backend, RunObservation, Timing
from .classification import PRECEDENCE, Classification, Finding
from .compare import Comparison, compare_host
from .floor import Floor, Machine, floor, load_machine
from .harness_record import record_measurement
from .host_tensor import HostTensor
from .interpreter import InterpreterBackend, InterpreterError
from .problem import TIMED_STREAM, Candidate, Launch, Problem, Shape, TensorSpec, Work
from .result import MeasurementResult, ShapeReport, Trial
from .service import Measurement, measure

__all__ = ["Backend", "RunObservation", "Timing", "PRECEDENCE", "Classification", "Finding", "Comparison",
           "compare_host", "Floor", "Machine", "floor", "load_machine", "HostTensor", "InterpreterBackend",
           "InterpreterError", "TIMED_STREAM", "Candidate", "Launch", "Problem", "Shape", "TensorSpec", "Work",
           "MeasurementResult", "ShapeReport", "Trial", "Measurement", "measure", "GpuBackend",
           "record_measurement"]


def __getattr__(name: str) -> object:
    if name == "GpuBackend":                 # torch is imported only by cakeir.measure.gpu
        from .gpu import GpuBackend
        return GpuBackend
    raise AttributeError(name)
