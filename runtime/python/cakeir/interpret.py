"""Run a kernel on the CPU interpreter from Python: `cakec run` (docs/interpreter.md) with NumPy arrays or torch CPU
tensors in and out.

    import cakeir.interpret, numpy as np
    a, b = np.ones(1000, np.float32), np.arange(1000, dtype=np.float32)
    out = cakeir.interpret.run("samples/vector_add.cake", inputs={"A": a, "B": b}, outputs=["C"])
    out["C"]                                  # a NumPy array (a torch tensor when an input was one)

How: every input is written to a .npy file in a private temporary folder, `cakec run` binds them to the
kernel's tensor parameters by name, and the outputs it writes are read back; the folder is removed.  NumPy is
needed (the interpreter's arrays are .npy files).  A refused kernel or a failed run (a race, a deadlock, an
out-of-bounds access, ...) raises InterpreterError with cakec's diagnostics, as JSON objects and as text.
bf16 tensors travel as float32 (NumPy has no bfloat16; the interpreter rounds them once, exactly as a
conversion would) and come back as float32."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from ._compile import DefineValue, _define_args
from ._errors import CakeError
from ._tools import find_cakec, tool_environment


class InterpreterError(CakeError):
    """`cakec run` failed: `diagnostics` are its JSON diagnostics, `returncode` its exit status, `command` the
    command line; the message is the diagnostics' text."""

    def __init__(self, message: str, diagnostics: Sequence[Dict[str, Any]] = (), returncode: int = 1,
                 command: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.diagnostics = list(diagnostics)
        self.returncode = returncode
        self.command = list(command)


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as error:
        raise CakeError("cakeir.interpret needs NumPy (pip install numpy): %s" % error) from error
    return numpy


def _as_array(value: Any, name: str) -> Any:
    """A NumPy array of an input: NumPy arrays as they are, torch CPU tensors through .numpy() (bf16 as float32),
    anything else through numpy.asarray."""
    np = _numpy()
    if type(value).__module__.startswith("torch"):
        if getattr(value, "device", None) is not None and value.device.type != "cpu":
            raise CakeError("cakeir.interpret: input %s is on %s; the interpreter takes CPU tensors" % (name, value.device))
        tensor = value.detach()
        if str(tensor.dtype) == "torch.bfloat16":
            tensor = tensor.float()
        return tensor.contiguous().numpy()
    return np.ascontiguousarray(np.asarray(value))


def _message(stderr: str, diagnostics: List[Dict[str, Any]]) -> str:
    lines = []
    for d in diagnostics:
        where = d.get("file", "")
        if d.get("line"):
            where += ":%s:%s" % (d.get("line"), d.get("column", 0))
        lines.append("%s: %s: %s [%s]" % (where, d.get("severity", "error"), d.get("message", ""), d.get("code", "")))
    return "\n".join(lines) if lines else stderr.strip()


def run(source: Union[str, "os.PathLike[str]"], *, inputs: Optional[Mapping[str, Any]] = None,
        outputs: Sequence[str] = (), kernel: Optional[str] = None, shape: Optional[Mapping[str, int]] = None,
        scalars: Optional[Mapping[str, Union[int, float]]] = None,
        defines: Optional[Mapping[str, DefineValue]] = None, seed: int = 0, schedules: int = 0,
        race_check: bool = True, max_steps: Optional[int] = None, cakec: Optional[str] = None,
        timeout: Optional[float] = None) -> Dict[str, Any]:
    """Runs `kernel` (default: the file's only kernel) of the .cake file `source` on the CPU.  `inputs` maps
    tensor parameter names to arrays; `outputs` names the tensor parameters to return (inputs included: an
    in-out tensor is both).  `shape` fixes shape variables no input sizes, `scalars` the scalar parameters,
    `defines` compile-time values (-D).  `seed` picks the interleaving, `schedules` > 0 runs that many
    (the schedule explorer).  Returns {name: array}; torch tensors when an input was a torch tensor."""
    np = _numpy()
    inputs = dict(inputs or {})
    as_torch = any(type(v).__module__.startswith("torch") for v in inputs.values())
    command = [find_cakec(cakec), "run", os.fspath(source), "--diagnostics-format", "json", "--seed", str(int(seed))]
    if kernel:
        command += ["--kernel", kernel]
    if shape:
        command += ["--shape", ",".join("%s=%d" % (k, int(v)) for k, v in shape.items())]
    if scalars:
        command += ["--scalar", ",".join("%s=%r" % (k, v) for k, v in scalars.items())]
    command += _define_args(defines)
    if schedules:
        command += ["--schedules", str(int(schedules))]
    if not race_check:
        command.append("--no-race-check")
    if max_steps is not None:
        command += ["--max-steps", str(int(max_steps))]
    with tempfile.TemporaryDirectory(prefix="cakeir-interpret-") as folder:
        bound = []
        for name, value in inputs.items():
            path = os.path.join(folder, "in_%s.npy" % name)
            np.save(path, _as_array(value, name), allow_pickle=False)
            bound.append("%s=%s" % (name, path))
        if bound:
            command += ["--inputs", ",".join(bound)]
        out_paths = {name: os.path.join(folder, "out_%s.npy" % name) for name in outputs}
        if out_paths:
            command += ["--outputs", ",".join("%s=%s" % kv for kv in out_paths.items())]
        try:
            proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=tool_environment(),
                                  timeout=timeout, check=False)
        except subprocess.TimeoutExpired as error:
            raise InterpreterError("cakec run did not finish within %s s" % timeout, (), -1, command) from error
        stdout, stderr = proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")
        diagnostics: List[Dict[str, Any]] = []
        try:   # --diagnostics-format json: one JSON array of diagnostics on stdout
            parsed = json.loads(stdout) if stdout.strip() else []
        except ValueError:
            parsed = []
        if isinstance(parsed, list):
            diagnostics = [d for d in parsed if isinstance(d, dict)]
        if proc.returncode != 0:
            raise InterpreterError(_message(stderr, diagnostics), diagnostics, proc.returncode, command)
        result: Dict[str, Any] = {}
        for name, path in out_paths.items():
            array = np.load(path, allow_pickle=False)
            if as_torch:
                import torch
                result[name] = torch.from_numpy(array)
            else:
                result[name] = array
        return result
