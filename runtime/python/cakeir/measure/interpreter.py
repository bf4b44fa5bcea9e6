"""The CPU backend of the measurement service: kernels run in the CAKE interpreter (`cakec run`), tensors are
host lists passed through cakeir.interpret (NumPy arrays, .npy files for `cakec run`).

A launch is one `cakec run` process: every tensor of the problem is written to a .npy file and given to
the kernel as an input, under the parameter name the launch binds it to (default: its own name), so the
kernel sees the poison or the stale values its outputs start with; every one is read back as an output, so a
write to an input shows.  (A kernel must therefore declare a parameter for every tensor of the problem.)

Streams are simulated: launches on the timed stream run when issued; a launch on any other stream is queued
and runs only at synchronize() (one legal order of work the evaluator does not wait for: it may finish at
any later time).  So at the end of the timed region the queued launches are pending (pending_unit
"launches", limit 0) and the outputs read there lack their work - the same evidence the device gives, made
deterministic.  What cannot be seen here: time itself.  The interpreter runs kernels exactly and in no
measured time, so timing checks apply only to figures given to the service (Candidate.claimed_ms)."""

from __future__ import annotations

import os
import subprocess
from typing import Any, Dict, List, Mapping, Optional

from .. import interpret
from .._tools import find_cakec, tool_environment
from ..interpret import InterpreterError
from .backend import Backend, RunObservation
from .compare import Comparison, compare_host
from .host_tensor import HostTensor, bit_equal, poisoned_tensor, random_tensor, round_to
from .problem import Candidate, Launch, Problem, Shape, TIMED_STREAM


class InterpreterBackend(Backend):
    name = "interpreter"
    can_time = False

    def __init__(self, cakec: Optional[str] = None, max_steps: Optional[int] = None):
        self.cakec = find_cakec(cakec)
        self.max_steps = max_steps
        self.queued: List[Any] = []
        self.runs = 0

    def describe(self) -> Dict[str, Any]:
        version = subprocess.run([self.cakec, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 env=tool_environment(), check=False).stdout.decode("utf-8", "replace").strip()
        return {"backend": self.name, "cakec": self.cakec, "cakec_version": version}

    # ---------------------------------------------------------------- tensors
    def random_inputs(self, problem: Problem, shape: Shape, seed: int) -> Dict[str, Any]:
        return {t.name: random_tensor(t.dtype, t.shape(shape), seed * 1000 + i)
                for i, t in enumerate(problem.inputs)}

    def poisoned_outputs(self, problem: Problem, shape: Shape) -> Dict[str, Any]:
        return {t.name: poisoned_tensor(t.dtype, t.shape(shape)) for t in problem.outputs}

    def stale_outputs(self, problem: Problem, shape: Shape, values: Mapping[str, Any]) -> Dict[str, Any]:
        return {t.name: HostTensor(t.dtype, t.shape(shape), [round_to(t.dtype, float(v)) for v in values[t.name].values])
                for t in problem.outputs}

    def poison(self, outputs: Mapping[str, Any]) -> None:
        for name, tensor in outputs.items():
            tensor.values[:] = poisoned_tensor(tensor.dtype, tensor.shape).values

    def clone(self, tensor: Any) -> Any:
        return tensor.clone()

    def bit_equal(self, a: Any, b: Any) -> bool:
        return bit_equal(a, b)

    def reference(self, problem: Problem, inputs: Mapping[str, Any], shape: Shape) -> Dict[str, Any]:
        if problem.reference_host is None:
            raise ValueError("problem %s has no reference_host: the interpreter backend cannot check it" % problem.name)
        out = problem.reference_host(inputs, shape)
        return {t.name: out[t.name] if isinstance(out[t.name], HostTensor) else
                HostTensor("f64", t.shape(shape), [float(v) for v in out[t.name]]) for t in problem.outputs}

    def compare(self, out: Any, ref: Any, tolerance: float, before: Optional[Any] = None) -> Comparison:
        return compare_host(out, ref, tolerance, before)

    # ---------------------------------------------------------------- runs
    def prepare(self, problem: Problem, candidate: Candidate) -> Any:
        """The candidate's defines resolved at the tuning shape; the source must exist."""
        if not os.path.isfile(candidate.source):
            raise FileNotFoundError(candidate.source)
        return {"defines": candidate.resolved_defines(problem.tuning_shape)}

    def run(self, prepared: Any, problem: Problem, candidate: Candidate, tensors: Dict[str, Any],
            shape: Shape) -> RunObservation:
        for launch in candidate.launches:
            if launch.stream == TIMED_STREAM:
                self._launch(prepared, candidate, launch, tensors, problem)
            else:
                self.queued.append((prepared, candidate, launch, tensors, problem))
        snapshot = {t.name: tensors[t.name].clone() for t in problem.outputs}
        return RunObservation(snapshot=snapshot, pending=float(len(self.queued)), pending_unit="launches",
                              pending_limit=0.0)

    def synchronize(self) -> None:
        queued, self.queued = self.queued, []
        for prepared, candidate, launch, tensors, problem in queued:
            self._launch(prepared, candidate, launch, tensors, problem)

    def _launch(self, prepared: Any, candidate: Candidate, launch: Launch, tensors: Dict[str, Any],
                problem: Problem) -> None:
        """One `cakec run` (cakeir.interpret) of launch.kernel with every problem tensor its parameters name, in
        and out."""
        import numpy as np   # the interpreter's arrays; imported here so that only this backend needs NumPy
        self.runs += 1
        params = self._params(candidate, launch, problem)
        inputs = {param: np.asarray(tensors[name].values, dtype=np.dtype(tensors[name].npy_descr))
                  .reshape(tensors[name].shape) for param, name in params.items()}
        outputs = interpret.run(candidate.source, inputs=inputs, outputs=list(params), kernel=launch.kernel,
                                scalars=launch.scalars or None, defines=prepared["defines"],
                                max_steps=self.max_steps, cakec=self.cakec)
        for param, name in params.items():
            tensor = tensors[name]
            tensor.values[:] = [round_to(tensor.dtype, float(v)) for v in outputs[param].ravel().tolist()]

    @staticmethod
    def _params(candidate: Candidate, launch: Launch, problem: Problem) -> Dict[str, str]:
        """Kernel parameter -> problem tensor: every tensor of the problem, under the name the launch binds
        it to."""
        by_tensor = {tensor: param for param, tensor in launch.bind.items()}
        return {by_tensor.get(t.name, t.name): t.name for t in problem.tensors}
