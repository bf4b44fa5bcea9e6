"""Automatic reduction of a failing kernel: delta debugging over the lines of its CAKE IR (docs/rules.md,
"Reduction").

The question a reducer answers: which part of a kernel is needed for a failure the verifier misses?  The
predicate is "the verifier passes, execution fails" (`verifier_passes_run_fails`): `cakec --verify-only`
exits 0 and the CPU interpreter (`cakec run --shape-auto`, docs/interpreter.md) stops with one of its
dynamic checks - by default the same check (diagnostic code) as the original kernel, so that the reduction
does not drift to another bug.  Any other callable `text -> bool` can be the predicate (e.g. one that
compiles and runs the kernel on a GPU and compares with a recorded failure; none is built in here).

How (`reduce_kernel`): the text is split into lines and shrunk with Zeller's ddmin (remove chunks of lines,
halving the chunk size when nothing can be removed, keep any removal after which the predicate still holds).
Candidates that do not parse simply fail the predicate (the verifier stage rejects them), so no knowledge of
the grammar is needed for correctness; two cheap passes make it fast: comment and blank lines are dropped
first, and each balanced `{ ... }` region (a line that opens a brace through the line that closes it) is tried
as one unit, so that an `if` or `for` and its body go together.  Every predicate result is memoised by text.
The result is 1-minimal in lines: removing any single remaining line breaks the predicate.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

from .. import _tools

# The interpreter's run-time checks that mean "the kernel is wrong" (docs/interpreter.md); E0903 (not
# executable yet) and E0906-E0909 (arguments, step limit) say nothing about the kernel's correctness.
RUNTIME_BUG_CODES = ("E0901", "E0902", "E0904", "E0905", "E0910", "E0911", "E0912", "E0913", "E0914")

Predicate = Callable[[str], bool]


@dataclass
class Outcome:
    """What cakec said about one kernel text: the verifier's verdict and the interpreter's run-time errors."""
    verified: bool
    verify_diagnostics: List[Dict[str, object]] = field(default_factory=list)
    run_failed: bool = False
    run_diagnostics: List[Dict[str, object]] = field(default_factory=list)

    def run_codes(self) -> List[str]:
        return [str(d.get("code", "")) for d in self.run_diagnostics if d.get("severity") in ("error", "fatal")]


def cakec_json(command: Sequence[str], timeout: float) -> "tuple[int, List[Dict[str, object]]]":
    """(exit status, the JSON diagnostics on stdout) of a cakec command; (-1, []) past `timeout` seconds."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout,
                              env=_tools.tool_environment())
    except subprocess.TimeoutExpired:
        return -1, []
    try:
        diags = json.loads(done.stdout) if done.stdout.strip() else []
    except ValueError:
        diags = []
    return done.returncode, diags if isinstance(diags, list) else []


def evaluate_text(text: str, *, cakec: Optional[str] = None, run_args: Sequence[str] = ("--shape-auto",),
                  rules: Optional[str] = None, timeout: float = 60.0, run: bool = True) -> Outcome:
    """Verifies `text` (with `rules`, a rules file, when given) and, when it verifies and `run`, runs it on the
    CPU interpreter."""
    exe = _tools.find_cakec(cakec)
    with tempfile.TemporaryDirectory(prefix="cake-reduce-") as folder:
        path = os.path.join(folder, "kernel.cake")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        command = [exe, path, "--verify-only", "--diagnostics-format", "json"]
        if rules:
            command += ["--rules", rules]
        rc, diags = cakec_json(command, timeout)
        outcome = Outcome(verified=rc == 0, verify_diagnostics=diags)
        if not outcome.verified or not run:
            return outcome
        rc, diags = cakec_json([exe, "run", path, "--diagnostics-format", "json", *run_args], timeout)
        outcome.run_failed = rc != 0
        outcome.run_diagnostics = diags
        return outcome


def verifier_passes_run_fails(*, codes: Optional[Sequence[str]] = None, cakec: Optional[str] = None,
                              run_args: Sequence[str] = ("--shape-auto",), timeout: float = 60.0) -> Predicate:
    """The predicate "cakec --verify-only passes and `cakec run` fails with one of `codes`" (default: any of
    RUNTIME_BUG_CODES)."""
    wanted = tuple(codes) if codes else RUNTIME_BUG_CODES

    def predicate(text: str) -> bool:
        outcome = evaluate_text(text, cakec=cakec, run_args=run_args, timeout=timeout)
        return outcome.verified and outcome.run_failed and any(c in wanted for c in outcome.run_codes())

    return predicate


@dataclass
class Reduction:
    """The result of reduce_kernel: the reduced text, and how many predicate calls (distinct texts) it took."""
    text: str
    tests: int
    original_lines: int

    @property
    def lines(self) -> int:
        return len(self.text.splitlines())


class _Memo:
    def __init__(self, predicate: Predicate) -> None:
        self.predicate = predicate
        self.cache: Dict[str, bool] = {}

    def __call__(self, lines: Sequence[str]) -> bool:
        text = "".join(lines)
        if text not in self.cache:
            self.cache[text] = bool(self.predicate(text))
        return self.cache[text]


def _brace_regions(lines: Sequence[str]) -> List[range]:
    """Ranges of line indices from a line that opens more braces than it closes to the line that brings the
    depth back, outermost last (inner regions are tried first: they are smaller)."""
    regions: List[range] = []
    stack: List[int] = []
    for i, line in enumerate(lines):
        code = line.split("//", 1)[0]
        for ch in code:
            if ch == "{":
                stack.append(i)
            elif ch == "}" and stack:
                start = stack.pop()
                if start != i:
                    regions.append(range(start, i + 1))
    regions.sort(key=len)
    return regions


def _ddmin(lines: List[str], test: _Memo) -> List[str]:
    n = 2
    while len(lines) >= 2:
        chunk = max(1, len(lines) // n)
        reduced = False
        for start in range(0, len(lines), chunk):
            candidate = lines[:start] + lines[start + chunk:]
            if candidate and test(candidate):
                lines = candidate
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(lines), n * 2)
    return lines


def reduce_kernel(text: str, predicate: Predicate, *, max_rounds: int = 8) -> Reduction:
    """Shrinks `text` while `predicate` holds (it must hold for `text`: ValueError otherwise)."""
    test = _Memo(predicate)
    lines = text.splitlines(keepends=True)
    original = len(lines)
    if not test(lines):
        raise ValueError("the predicate does not hold for the kernel to reduce")
    # 1. comments and blank lines
    stripped = [l for l in lines if l.strip() and not l.strip().startswith("//")]
    if test(stripped):
        lines = stripped
    for _ in range(max_rounds):
        before = len(lines)
        # 2. balanced brace regions as units (re-computed after every removal: indices shift)
        progress = True
        while progress:
            progress = False
            for region in _brace_regions(lines):
                candidate = lines[:region.start] + lines[region.stop:]
                if test(candidate):
                    lines = candidate
                    progress = True
                    break
        # 3. ddmin over single lines
        lines = _ddmin(lines, test)
        if len(lines) == before:
            break
    return Reduction(text="".join(lines), tests=len(test.cache), original_lines=original)
