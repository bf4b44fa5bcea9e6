"""The agent tools: one table of named operations, each with a description, a JSON Schema for its arguments
and a handler, that both agent frontends serve - the JSON-lines server (jsonl_server.py) and the MCP server
(mcp_server.py) - so the two cannot disagree (docs/harness.md, section "Agent tools").

A handler takes the ToolContext (the cakec to run, the run record, a work folder for outputs) and the
arguments as a dict, and returns a JSON-serialisable dict; a request it cannot serve raises ToolError, which
the frontends turn into an error response.  Kernel sources are given as text ("ir") or as a path ("file",
read, never written).  Outputs (cubins, .npy results) go to the context's work folder."""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from .compiler import Compiler, StageResult
from .evaluate import evaluate, kernel_name, stage_signature, write_candidate
from .record import RunRecord, ir_sha256
from . import reference
from .family import Candidate
from .tactics import TACTICS


class ToolError(Exception):
    """A request a tool cannot serve (bad arguments, unknown candidate, missing file); its message is the
    error response."""


class ToolContext:
    """What the tools share: the compiler (found on first use), the run record (opened on first use) and
    the folder for outputs (a temporary one unless given)."""

    def __init__(self, database: Optional[str] = None, cakec: Optional[str] = None, timeout: float = 300.0,
                 work_dir: Optional[str] = None) -> None:
        self.database = database
        self._cakec = cakec
        self.timeout = timeout
        self.work_dir = work_dir or tempfile.mkdtemp(prefix="cake-harness-")
        self._compiler: Optional[Compiler] = None
        self._record: Optional[RunRecord] = None
        self._runs = 0

    @property
    def compiler(self) -> Compiler:
        if self._compiler is None:
            try:
                self._compiler = Compiler(self._cakec, self.timeout)
            except FileNotFoundError as error:
                raise ToolError(str(error)) from error
        return self._compiler

    @property
    def record(self) -> RunRecord:
        if self._record is None:
            if not self.database:
                raise ToolError("no run record: start the server with --db PATH")
            self._record = RunRecord(self.database)
        return self._record

    def close(self) -> None:
        if self._record is not None:
            self._record.close()
            self._record = None

    def new_folder(self, kind: str) -> str:
        self._runs += 1
        folder = os.path.join(self.work_dir, "%s-%d" % (kind, self._runs))
        os.makedirs(folder, exist_ok=True)
        return folder


Handler = Callable[[ToolContext, Dict[str, Any]], Dict[str, Any]]


@dataclass
class Tool:
    name: str
    description: str
    schema: Dict[str, Any]
    handler: Handler


# -- argument schemas --------------------------------------------------------------------------------------

_SOURCE = {"ir": {"type": "string", "description": "the kernel's CAKE IR text"},
           "file": {"type": "string", "description": "path of a .cake file (read only), instead of ir"}}
_DEFINES = {"defines": {"type": "object", "description": "compile-time parameters, -D NAME=VALUE",
                        "additionalProperties": {"type": ["integer", "string"]}},
            "arch": {"type": "string", "description": "target architecture (sm_80 ... sm_100a); default: the file's"}}
_SHAPE = {"type": ["object", "string"], "description": "shape variables: {\"M\": 4096} or \"M=4096,N=4096\"",
          "additionalProperties": {"type": "integer"}}
_ARRAY = {"type": ["string", "object"], "description": "a .npy path, or {values: [...], shape: [...], dtype}"}


def _schema(properties: Dict[str, Any], required: Tuple[str, ...] = ()) -> Dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


# -- helpers -------------------------------------------------------------------------------------------------

def _source_text(args: Dict[str, Any]) -> str:
    if isinstance(args.get("ir"), str):
        return str(args["ir"])
    if isinstance(args.get("file"), str):
        try:
            with open(args["file"], encoding="utf-8") as handle:
                return handle.read()
        except OSError as error:
            raise ToolError("cannot read %s: %s" % (args["file"], error)) from error
    raise ToolError("give the kernel as 'ir' (text) or 'file' (a path)")


def _write_source(ctx: ToolContext, args: Dict[str, Any], kind: str) -> Tuple[str, str, str]:
    """(IR text, path of the copy in a fresh work folder, that folder)."""
    text = _source_text(args)
    folder = ctx.new_folder(kind)
    return text, write_candidate(text, folder, kernel_name(text)), folder


def _int_arg(args: Dict[str, Any], name: str) -> int:
    value = args.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolError("'%s' must be an integer (a candidate id)" % name)
    return value


def _numpy() -> Any:
    """NumPy, which reads and writes the interpreter's .npy arrays (pip install numpy)."""
    try:
        import numpy
    except ImportError as error:
        raise ToolError("arrays need NumPy (pip install numpy): %s" % error) from error
    return numpy


def _read_array(path: str) -> List[Any]:
    """The elements of a .npy file, flat in row-major order."""
    return _numpy().load(path, allow_pickle=False).ravel().tolist()


def _array_file(value: Any, folder: str, name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("values"), list):
        shape = value.get("shape") or [len(value["values"])]
        path = os.path.join(folder, "%s.in.npy" % name)
        np = _numpy()
        try:
            np.save(path, np.asarray(value["values"], dtype=str(value.get("dtype", "float32"))).reshape(shape))
        except (ValueError, TypeError) as error:
            raise ToolError("array %s: %s" % (name, error)) from error
        return path
    raise ToolError("array %s: give a .npy path or {values, shape, dtype}" % name)


def compare_arrays(actual: List[Any], expected: List[Any], rtol: float, atol: float) -> Dict[str, Any]:
    """max_abs_error, max_rel_error and mismatches (|a - e| > atol + rtol * |e|; NaN only matches NaN)."""
    if len(actual) != len(expected):
        return {"passed": False, "mismatches": max(len(actual), len(expected)),
                "reason": "%d elements, %d expected" % (len(actual), len(expected))}
    max_abs, max_rel, mismatches, first = 0.0, 0.0, 0, None
    for index, (a, e) in enumerate(zip(actual, expected)):
        a, e = float(a), float(e)
        if math.isnan(a) or math.isnan(e):
            bad = not (math.isnan(a) and math.isnan(e))
        else:
            error = abs(a - e) if not (math.isinf(a) and a == e) else 0.0
            max_abs = max(max_abs, error)
            if e != 0:
                max_rel = max(max_rel, error / abs(e))
            bad = error > atol + rtol * abs(e)
        if bad:
            mismatches += 1
            if first is None:
                first = {"index": index, "actual": a, "expected": e}
    return {"passed": mismatches == 0, "max_abs_error": max_abs, "max_rel_error": max_rel,
            "mismatches": mismatches, "first_mismatch": first}


# -- handlers ------------------------------------------------------------------------------------------------

def _answer(result: StageResult, text: str) -> Dict[str, Any]:
    """A compiler request's JSON answer, with the failure signature when it failed."""
    answer: Dict[str, Any] = result.to_json()
    if not result.ok:
        answer["failure_signature"] = stage_signature(result, text)
    return answer

def _verify(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    text, source, _ = _write_source(ctx, args, "verify")
    result = ctx.compiler.verify(source, args.get("defines"), args.get("arch", ""))
    return _answer(result, text)


def _estimate(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    text, source, _ = _write_source(ctx, args, "estimate")
    result = ctx.compiler.estimate(source, args["shape"], args.get("defines"), args.get("arch", ""),
                                   verify=bool(args.get("verify", False)), sweep=args.get("sweep"),
                                   top=int(args.get("top", 0)), machine=args.get("machine", ""))
    return _answer(result, text)


def _compile(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    text, source, folder = _write_source(ctx, args, "compile")
    cubin = os.path.join(folder, (kernel_name(text) or "candidate") + ".cubin")
    result = ctx.compiler.compile(source, cubin, args.get("defines"), args.get("arch", ""),
                                  verify=bool(args.get("verify", False)))
    return _answer(result, text)


def _run(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    text, source, folder = _write_source(ctx, args, "run")
    inputs = {name: _array_file(value, folder, name) for name, value in (args.get("inputs") or {}).items()}
    wanted = args.get("outputs") or list((args.get("expected") or {}).keys())
    outputs = {name: os.path.join(folder, "%s.npy" % name) for name in wanted}
    result = ctx.compiler.run(source, folder, args.get("kernel", ""), args.get("shape"), inputs, outputs,
                              args.get("defines"), args.get("seed"), int(args.get("schedules", 0)))
    answer = _answer(result, text)
    answer["outputs"] = outputs if result.ok else {}
    if args.get("candidate") is not None:
        try:
            ctx.record.add_stage(_int_arg(args, "candidate"), "run", result.ok, result.exit_code, result.diagnostics,
                                 {"outputs": answer["outputs"], "seed": args.get("seed")}, args.get("shape"),
                                 answer.get("failure_signature"), ctx.compiler.version(), result.seconds)
        except KeyError as error:
            raise ToolError(str(error.args[0])) from error
    expected = args.get("expected") or {}
    if expected:
        checks: Dict[str, Any] = {}
        for name, value in expected.items():
            if not result.ok:
                checks[name] = {"passed": False, "reason": "the run failed"}
                continue
            try:
                actual_values = _read_array(outputs[name])
                expected_values = _read_array(_array_file(value, folder, name + ".expected"))
            except (OSError, ValueError, KeyError) as error:
                checks[name] = {"passed": False, "reason": str(error)}
                continue
            checks[name] = compare_arrays(actual_values, expected_values, float(args.get("rtol", 1e-2)),
                                          float(args.get("atol", 1e-3)))
        passed = all(check["passed"] for check in checks.values())
        answer["correctness"] = {"passed": passed, "outputs": checks}
        if args.get("candidate") is not None:
            candidate = _int_arg(args, "candidate")
            worst = [c for c in checks.values() if "max_abs_error" in c]
            try:
                answer["correctness"]["id"] = ctx.record.add_correctness(
                    candidate, passed, args.get("kernel", "") or kernel_name(text), args.get("shape"),
                    max((c["max_abs_error"] for c in worst), default=None),
                    max((c["max_rel_error"] for c in worst), default=None),
                    sum(int(c.get("mismatches", 0)) for c in checks.values()), "interpreter",
                    {"outputs": checks, "seed": args.get("seed"), "rtol": args.get("rtol", 1e-2),
                     "atol": args.get("atol", 1e-3)})
            except KeyError as error:
                raise ToolError(str(error.args[0])) from error
    return answer


def _evaluate(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    text = _source_text(args)
    record = ctx.record if args.get("record", True) else None
    try:
        return evaluate(ctx.compiler, text, args.get("defines"), args.get("arch", ""), args.get("shape"), record,
                        [int(p) for p in args.get("parents", [])], args.get("producer", ""),
                        args.get("kernel", ""), ctx.new_folder("evaluate"), bool(args.get("compile", True)))
    except KeyError as error:
        raise ToolError(str(error.args[0])) from error


def _record_candidate(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    text = _source_text(args)
    try:
        candidate = ctx.record.add_candidate(text, args.get("defines"), args.get("arch", ""),
                                             args.get("kernel", "") or kernel_name(text), args.get("producer", ""),
                                             [int(p) for p in args.get("parents", [])])
    except KeyError as error:
        raise ToolError(str(error.args[0])) from error
    return {"candidate": candidate, "ir_sha256": ir_sha256(text)}


_CORRECTNESS_FIELDS = ("kernel", "shape", "max_abs_error", "max_rel_error", "mismatches", "method", "detail")
_TIMING_FIELDS = ("kernel", "shape", "gpu", "sm_clock_mhz", "mem_clock_mhz", "peer", "peer_time_ms", "seed", "detail")


def _add_result(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    candidate = _int_arg(args, "candidate")
    try:
        if args["kind"] == "correctness":
            if "passed" not in args:
                raise ToolError("a correctness result needs 'passed'")
            fields = {k: args[k] for k in _CORRECTNESS_FIELDS if k in args}
            return {"id": ctx.record.add_correctness(candidate, bool(args["passed"]), **fields)}
        if args["kind"] == "timing":
            if "time_ms" not in args:
                raise ToolError("a timing needs 'time_ms'")
            fields = {k: args[k] for k in _TIMING_FIELDS if k in args}
            return {"id": ctx.record.add_timing(candidate, float(args["time_ms"]), **fields)}
    except KeyError as error:
        raise ToolError(str(error.args[0])) from error
    raise ToolError("kind must be 'correctness' or 'timing'")


def _best(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return {"best": ctx.record.best(args["kernel"], args["shape"], args.get("metric", "time"),
                                        int(args.get("limit", 1)))}
    except ValueError as error:
        raise ToolError(str(error)) from error


def _lineage(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return ctx.record.lineage(_int_arg(args, "candidate"))
    except KeyError as error:
        raise ToolError(str(error.args[0])) from error


def _diff(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return {"diff": ctx.record.diff(_int_arg(args, "a"), _int_arg(args, "b"), int(args.get("context", 3)))}
    except KeyError as error:
        raise ToolError(str(error.args[0])) from error


def _failures(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    return {"failures": ctx.record.failure_histogram(args.get("stage", ""))}


def _candidate(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return ctx.record.candidate(_int_arg(args, "candidate"), bool(args.get("full", True)))
    except KeyError as error:
        raise ToolError(str(error.args[0])) from error


def _explain(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    result = ctx.compiler.explain(str(args["code"]))
    if not result.ok:
        message = result.diagnostics[0]["message"] if result.diagnostics else result.stderr.strip()
        raise ToolError(message)
    return {"code": str(args["code"]).upper(), "text": result.output["text"]}


def _reference(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    try:
        return reference.lookup(str(args.get("construct", "")))
    except FileNotFoundError as error:
        raise ToolError(str(error)) from error


def _tactic_candidate(args: Dict[str, Any]) -> Optional[Candidate]:
    if not args.get("file"):
        return None
    try:
        return Candidate.from_file(str(args["file"]), args.get("defines"))
    except (OSError, ValueError) as error:
        raise ToolError("cannot read %s: %s" % (args["file"], error)) from error


def _list_tactics(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    candidate = _tactic_candidate(args)
    return {"tactics": [t.describe(candidate) for t in TACTICS]}


def _apply_tactic(ctx: ToolContext, args: Dict[str, Any]) -> Dict[str, Any]:
    from .search_cli import apply_tactic
    candidate = _tactic_candidate(args)
    if candidate is None:
        raise ToolError("apply_tactic needs 'file' (a .cake path; a family member for schedule tactics)")
    shapes = args.get("shapes") or []
    try:
        return apply_tactic(str(args["tactic"]), candidate, args.get("params"), shapes,
                            ctx.compiler if shapes else None)
    except (KeyError, ValueError) as error:
        raise ToolError(str(error.args[0]) if isinstance(error, KeyError) else str(error)) from error


_CANDIDATE_ID = {"type": "integer", "description": "a candidate id of the run record"}

TOOLS: List[Tool] = [
    Tool("verify", "Check a kernel: front end, the verifier's proofs (counterexamples on failure), PTX in memory. "
         "Returns ok, cakec's JSON diagnostics and, on failure, the failure signature.",
         _schema(dict(_SOURCE, **_DEFINES)), _verify),
    Tool("estimate", "The cost model's prediction at a shape: time, bottleneck, utilisation per resource "
         "(cakec --estimate --json); with sweep (['BN=64,128', 'S=3,4']) every variant, ranked.",
         _schema(dict(_SOURCE, **_DEFINES, shape=_SHAPE,
                      sweep={"type": "array", "items": {"type": "string"}}, top={"type": "integer"},
                      machine={"type": "string"}, verify={"type": "boolean"}), ("shape",)), _estimate),
    Tool("compile", "Compile to a cubin with ptxas: the manifest, registers, spills and shared memory per kernel.",
         _schema(dict(_SOURCE, **_DEFINES, verify={"type": "boolean"})), _compile),
    Tool("run", "Run a kernel on the CPU interpreter (exact semantics, race checks) on given inputs; with "
         "expected outputs, compare them (rtol, atol); with candidate, record the run and the comparison.",
         _schema(dict(_SOURCE, defines=_DEFINES["defines"], kernel={"type": "string"}, shape=_SHAPE,
                      inputs={"type": "object", "additionalProperties": _ARRAY},
                      outputs={"type": "array", "items": {"type": "string"}},
                      expected={"type": "object", "additionalProperties": _ARRAY},
                      rtol={"type": "number"}, atol={"type": "number"}, seed={"type": "integer"},
                      schedules={"type": "integer"}, candidate=_CANDIDATE_ID)), _run),
    Tool("evaluate", "Record a candidate (with its parents and producer) and run verify -> estimate (with shape) "
         "-> compile, stopping at the first failing stage; each stage's outcome goes into the run record.",
         _schema(dict(_SOURCE, **_DEFINES, shape=_SHAPE, kernel={"type": "string"},
                      parents={"type": "array", "items": {"type": "integer"}}, producer={"type": "string"},
                      record={"type": "boolean"}, compile={"type": "boolean"})), _evaluate),
    Tool("record_candidate", "Record a candidate without evaluating it; returns its id.",
         _schema(dict(_SOURCE, **_DEFINES, kernel={"type": "string"}, producer={"type": "string"},
                      parents={"type": "array", "items": {"type": "integer"}})), _record_candidate),
    Tool("add_result", "Record a correctness result (kind 'correctness': passed, errors) or a GPU timing "
         "(kind 'timing': time_ms, gpu, clocks, peer, peer_time_ms, seed) for a candidate.",
         _schema({"candidate": _CANDIDATE_ID, "kind": {"type": "string", "enum": ["correctness", "timing"]},
                  "passed": {"type": "boolean"}, "time_ms": {"type": "number"}, "kernel": {"type": "string"},
                  "shape": _SHAPE, "max_abs_error": {"type": "number"}, "max_rel_error": {"type": "number"},
                  "mismatches": {"type": "integer"}, "method": {"type": "string"}, "gpu": {"type": "string"},
                  "sm_clock_mhz": {"type": "number"}, "mem_clock_mhz": {"type": "number"},
                  "peer": {"type": "string"}, "peer_time_ms": {"type": "number"}, "seed": {"type": "integer"},
                  "detail": {"type": "object"}}, ("candidate", "kind")), _add_result),
    Tool("best", "The best candidates for a kernel at a shape, by measured time or by the cost model's prediction.",
         _schema({"kernel": {"type": "string"}, "shape": _SHAPE,
                  "metric": {"type": "string", "enum": ["time", "predicted"]}, "limit": {"type": "integer"}},
                 ("kernel", "shape")), _best),
    Tool("lineage", "A candidate's ancestors and descendants.", _schema({"candidate": _CANDIDATE_ID}, ("candidate",)),
         _lineage),
    Tool("diff", "Unified diff of two candidates' IR (arch and defines in the first line).",
         _schema({"a": _CANDIDATE_ID, "b": _CANDIDATE_ID, "context": {"type": "integer"}}, ("a", "b")), _diff),
    Tool("failures", "Failure signatures (stage:code:construct) with how many candidates failed with each.",
         _schema({"stage": {"type": "string"}}), _failures),
    Tool("candidate", "One candidate: IR, defines, parents and (full) every recorded outcome.",
         _schema({"candidate": _CANDIDATE_ID, "full": {"type": "boolean"}}, ("candidate",)), _candidate),
    Tool("list_tactics", "The tactic registry: each schedule transformation's name, text, parameters and "
         "preconditions; with file (and defines), whether it applies to that kernel, why not, and its legal values.",
         _schema({"file": _SOURCE["file"], "defines": _DEFINES["defines"]}), _list_tactics),
    Tool("apply_tactic", "Apply a tactic to a kernel file: its children (source file, defines, family member) - "
         "every legal choice, or the one params names - and, with shapes, each child's predicted speed-up "
         "(cakec --estimate before and after).  Evaluate a child with evaluate(file, defines).",
         _schema({"tactic": {"type": "string"}, "file": _SOURCE["file"], "defines": _DEFINES["defines"],
                  "params": {"type": "object", "additionalProperties": {"type": "integer"}},
                  "shapes": {"type": "array", "items": _SHAPE}}, ("tactic", "file")), _apply_tactic),
    Tool("explain", "What a diagnostic code means and how to fix it (cakec --explain).",
         _schema({"code": {"type": "string"}}, ("code",)), _explain),
    Tool("reference", "The language reference section for a construct (tma.load, mbarrier, wgmma, roles, ...); "
         "an empty construct lists the headings.", _schema({"construct": {"type": "string"}}), _reference),
]

TOOLS_BY_NAME: Dict[str, Tool] = {tool.name: tool for tool in TOOLS}


def check_arguments(tool: Tool, args: Dict[str, Any]) -> None:
    """The checks the schemas state that the handlers rely on: required names present, no unknown names."""
    known = tool.schema["properties"]
    unknown = sorted(name for name in args if name not in known)
    if unknown:
        raise ToolError("%s: unknown argument(s) %s (known: %s)" % (tool.name, ", ".join(unknown), ", ".join(sorted(known))))
    missing = [name for name in tool.schema["required"] if name not in args]
    if missing:
        raise ToolError("%s: missing argument(s) %s" % (tool.name, ", ".join(missing)))


def call_tool(ctx: ToolContext, name: str, args: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """Runs tool `name` with args; ToolError for an unknown tool or a request it cannot serve."""
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        raise ToolError("unknown tool %r (tools: %s)" % (name, ", ".join(TOOLS_BY_NAME)))
    args = dict(args or {})
    check_arguments(tool, args)
    return tool.handler(ctx, args)
