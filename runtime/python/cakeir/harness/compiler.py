"""Running cakec for the harness: one function per compiler request, each a subprocess with a time limit whose
outcome comes back as a StageResult (docs/harness.md, section "Evaluation").

Every request reads a .cake file the caller wrote (the harness writes candidates into a folder of its own,
never beside the user's sources) and passes -D, --arch and --shape as the command line documents them
(docs/cli.md).  Diagnostics come from --diagnostics-format=json where cakec allows it; --estimate --json
owns stdout, so its diagnostics are read back from the text on stderr (parse_text_diagnostics).  ptxas's
resource report (-v) is parsed into one row per kernel.  A request that runs past its limit is killed and
reported as failed with timed_out set; the harness never waits on cakec unbounded."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .. import _tools

Defines = Dict[str, Any]

_TEXT_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<column>\d+): "
                              r"(?P<severity>error|warning|fatal|note): (?P<message>.*?)(?: \[(?P<code>E\d{4})\])?$")
_TOOL_DIAGNOSTIC = re.compile(r"^cakec: (?P<severity>error|warning|fatal): (?P<message>.*?)(?: \[(?P<code>E\d{4})\])?$")
_RESOURCE_LINE = re.compile(r"^cakec: (?P<kernel>\S+) \((?P<arch>sm_\w+)\): (?P<registers>\d+) registers, "
                            r"(?P<static_smem>\d+) bytes static smem, (?P<stack>\d+) bytes stack, "
                            r"(?P<spill_stores>\d+) bytes spill stores, (?P<spill_loads>\d+) bytes spill loads")
_DYNAMIC_SMEM_LINE = re.compile(r"^cakec: (?P<kernel>\S+): (?P<bytes>\d+) bytes dynamic shared memory")


@dataclass
class StageResult:
    """The outcome of one cakec request."""
    stage: str
    ok: bool
    exit_code: Optional[int]
    diagnostics: List[Dict[str, Any]] = field(default_factory=list)
    output: Dict[str, Any] = field(default_factory=dict)
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    def to_json(self) -> Dict[str, Any]:
        return {"stage": self.stage, "ok": self.ok, "exit_code": self.exit_code, "timed_out": self.timed_out,
                "seconds": round(self.seconds, 4), "diagnostics": self.diagnostics, "output": self.output,
                "stderr": self.stderr[-4000:]}


def parse_text_diagnostics(text: str) -> List[Dict[str, Any]]:
    """cakec's text diagnostics (docs/cli.md, "Output conventions") as the JSON format's objects; notes are
    attached to the diagnostic before them, source lines and carets skipped."""
    found: List[Dict[str, Any]] = []
    for line in text.splitlines():
        match = _TEXT_DIAGNOSTIC.match(line)
        if match:
            entry: Dict[str, Any] = {"code": match.group("code") or "", "severity": match.group("severity"),
                                     "file": match.group("file"), "line": int(match.group("line")),
                                     "column": int(match.group("column")), "message": match.group("message"),
                                     "notes": []}
        else:
            match = _TOOL_DIAGNOSTIC.match(line)
            if not match:
                if line.startswith("hint: ") and found:
                    found[-1]["hint"] = line[len("hint: "):]
                continue
            entry = {"code": match.group("code") or "", "severity": match.group("severity"), "file": None,
                     "line": 0, "column": 0, "message": match.group("message"), "notes": []}
        if entry["severity"] == "note" and found:
            found[-1]["notes"].append({k: entry[k] for k in ("file", "line", "column", "message")})
        else:
            found.append(entry)
    return found


def parse_resource_report(text: str) -> List[Dict[str, Any]]:
    """The per-kernel lines cakec -v prints after ptxas: registers, spills, static/dynamic shared memory."""
    kernels: Dict[str, Dict[str, Any]] = {}
    for line in text.splitlines():
        match = _RESOURCE_LINE.match(line)
        if match:
            row = kernels.setdefault(match.group("kernel"), {"kernel": match.group("kernel")})
            row["arch"] = match.group("arch")
            for key in ("registers", "static_smem", "stack", "spill_stores", "spill_loads"):
                row[key] = int(match.group(key))
            continue
        match = _DYNAMIC_SMEM_LINE.match(line)
        if match:
            kernels.setdefault(match.group("kernel"), {"kernel": match.group("kernel")})["dynamic_smem"] = \
                int(match.group("bytes"))
    return list(kernels.values())


def define_arguments(defines: Optional[Defines]) -> List[str]:
    """-D NAME=VALUE for each define, in name order (the command line is then the same for equal dicts)."""
    args: List[str] = []
    for name in sorted(defines or {}):
        args += ["-D", "%s=%s" % (name, defines[name] if defines else "")]
    return args


def shape_text(shape: Any) -> str:
    """A shape as --shape spells it, names sorted: {"N": 1000} or "N=1000" -> "N=1000"."""
    if not shape:
        return ""
    if isinstance(shape, str):
        pairs = [part.split("=", 1) for part in shape.split(",") if part.strip()]
        shape = {name.strip(): value.strip() for name, value in pairs}
    return ",".join("%s=%s" % (name, shape[name]) for name in sorted(shape))


class Compiler:
    """One cakec executable (found as cakeir.compile finds it unless `path` is given) and a time limit."""

    def __init__(self, path: Optional[str] = None, timeout: float = 300.0) -> None:
        self.path = _tools.find_cakec(path)
        self.timeout = timeout
        self._version: Optional[str] = None

    def _run(self, stage: str, args: Sequence[str], cwd: Optional[str] = None) -> StageResult:
        start = time.monotonic()
        try:
            done = subprocess.run([self.path] + list(args), cwd=cwd, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=self.timeout,
                                  env=_tools.tool_environment(), check=False)
        except subprocess.TimeoutExpired as expired:
            stderr = (expired.stderr or b"").decode("utf-8", "replace")
            return StageResult(stage, False, None, [], {}, stderr, time.monotonic() - start, True)
        result = StageResult(stage, done.returncode == 0, done.returncode, [], {},
                             done.stderr.decode("utf-8", "replace"), time.monotonic() - start)
        result.output["stdout"] = done.stdout.decode("utf-8", "replace")
        return result

    @staticmethod
    def _json_diagnostics(result: StageResult) -> None:
        stdout = result.output.pop("stdout", "")
        try:
            parsed = json.loads(stdout) if stdout.strip() else []
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            result.diagnostics = parsed
        else:
            result.diagnostics = parse_text_diagnostics(result.stderr)

    def version(self) -> str:
        """What `cakec --version` prints (compiler, Z3 and ptxas versions), remembered after the first call."""
        if self._version is None:
            result = self._run("version", ["--version"])
            self._version = result.output.get("stdout", "").strip()
        return self._version

    def verify(self, source: str, defines: Optional[Defines] = None, arch: str = "") -> StageResult:
        args = [source, "--verify-only", "--diagnostics-format=json"] + define_arguments(defines)
        result = self._run("verify", args + (["--arch", arch] if arch else []))
        self._json_diagnostics(result)
        result.output["summary"] = result.stderr.strip().splitlines()[-1] if result.ok and result.stderr.strip() else ""
        return result

    def estimate(self, source: str, shape: Any, defines: Optional[Defines] = None, arch: str = "",
                 verify: bool = False, sweep: Optional[Sequence[str]] = None, top: int = 0,
                 machine: str = "") -> StageResult:
        args = [source, "--estimate", "--shape", shape_text(shape), "--json"] + define_arguments(defines)
        args += (["--arch", arch] if arch else []) + ([] if verify else ["--no-verify"])
        args += (["--machine", machine] if machine else [])
        if sweep:
            args += ["--sweep"] + list(sweep) + (["--top", str(top)] if top else []) + ["-j", "1"]
        result = self._run("estimate", args)
        stdout = result.output.pop("stdout", "")
        result.diagnostics = parse_text_diagnostics(result.stderr)
        if result.ok:
            try:
                result.output["estimate"] = json.loads(stdout)
            except ValueError:
                result.ok = False
                result.output["stdout"] = stdout[-4000:]
        return result

    def compile(self, source: str, output: str, defines: Optional[Defines] = None, arch: str = "",
                verify: bool = False) -> StageResult:
        """cubin + manifest at `output` (and output.json) with ptxas's resource report parsed."""
        args = [source, "-o", output, "-v", "--diagnostics-format=json"] + define_arguments(defines)
        args += (["--arch", arch] if arch else []) + ([] if verify else ["--no-verify"])
        result = self._run("compile", args)
        self._json_diagnostics(result)
        result.output["resources"] = parse_resource_report(result.stderr)
        if result.ok and os.path.isfile(output + ".json"):
            with open(output + ".json", encoding="utf-8") as handle:
                result.output["manifest"] = json.load(handle)
            result.output["cubin"] = output
        return result

    def calibrate(self, measurements: str, output: str, machine: str = "") -> StageResult:
        """`cakec calibrate MEASUREMENTS -o OUTPUT [--machine PRIOR]`: the fitted machine description at
        `output` (docs/cost-model.md, section 4)."""
        args = ["calibrate", measurements, "-o", output, "--no-progress"] + (["--machine", machine] if machine else [])
        result = self._run("calibrate", args)
        result.output.pop("stdout", None)
        result.diagnostics = parse_text_diagnostics(result.stderr)
        return result

    def run(self, source: str, cwd: str, kernel: str = "", shape: Any = None,
            inputs: Optional[Dict[str, str]] = None, outputs: Optional[Dict[str, str]] = None,
            defines: Optional[Defines] = None, seed: Optional[int] = None, schedules: int = 0) -> StageResult:
        """`cakec run` (the CPU interpreter); inputs and outputs map tensor parameters to .npy paths."""
        args = ["run", source, "--diagnostics-format", "json"] + define_arguments(defines)
        args += (["--kernel", kernel] if kernel else []) + (["--shape", shape_text(shape)] if shape else [])
        if inputs:
            args += ["--inputs", ",".join("%s=%s" % item for item in sorted(inputs.items()))]
        if outputs:
            args += ["--outputs", ",".join("%s=%s" % item for item in sorted(outputs.items()))]
        args += (["--seed", str(seed)] if seed is not None else []) + (["--schedules", str(schedules)] if schedules else [])
        result = self._run("run", args, cwd=cwd)
        self._json_diagnostics(result)
        return result

    def explain(self, code: str) -> StageResult:
        result = self._run("explain", ["--explain", code])
        result.output["text"] = result.output.pop("stdout", "")
        result.diagnostics = parse_text_diagnostics(result.stderr)
        return result
