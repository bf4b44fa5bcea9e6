"""Failure signatures: one normalised string per failed stage, so that failures of different candidates
cluster (docs/harness.md, section "Failure signatures").

A signature is STAGE:CODE:CONSTRUCT.  STAGE is the stage that failed (verify, estimate, compile, run).  CODE
is the first error's diagnostic code (E0301), or what stood in for one: `timeout` when cakec ran past its
limit, `exit-N` when it failed without a diagnostic.  CONSTRUCT is the kind of source statement the error is
located at, read from the candidate's IR: the statement's leading keyword or operation (`wait`, `tma.load`,
`let`, `for`; a leading `} else {` is skipped), `store` for an assignment to a named tensor, array or variable (`C[i] = ...`, `x += ...`),
or `-` when the diagnostic has no location.  Names, numbers and messages are left out: they differ between
candidates that fail the same way."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional

_LEADING_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_ASSIGNMENT = re.compile(r"\s*(?:\[.*?\]\s*)*(?:[-+*/%&|^]|<<|>>)?=(?!=)")


def first_error(diagnostics: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The first diagnostic of severity error or fatal, or None."""
    for diagnostic in diagnostics:
        if diagnostic.get("severity") in ("error", "fatal"):
            return diagnostic
    return None


def construct_at(ir_text: str, line: int) -> str:
    """The kind of statement on 1-based line `line` of ir_text (see the module's docstring)."""
    lines = ir_text.splitlines()
    if line < 1 or line > len(lines):
        return "-"
    text = lines[line - 1].strip()
    opening = re.match(r"[\s};]*(?:(else)\b\s*)?\{?\s*", text)  # `} else {`, `};`
    rest = text[opening.end():] if opening else text
    if not rest and opening and opening.group(1):
        return "else"
    text = rest
    match = _LEADING_WORD.match(text)
    if match is None:
        return "-"
    word = match.group(0)
    if _ASSIGNMENT.match(text[match.end():]):
        return "store"
    return word


def failure_signature(stage: str, diagnostics: List[Dict[str, Any]], ir_text: str,
                      fallback_code: str = "") -> str:
    """STAGE:CODE:CONSTRUCT for a failed stage; fallback_code stands for the code when no error carries one."""
    error = first_error(diagnostics)
    code = (error or {}).get("code") or fallback_code or "unknown"
    construct = "-"
    if error is not None and error.get("file") and int(error.get("line") or 0) > 0:
        construct = construct_at(ir_text, int(error["line"]))
    return "%s:%s:%s" % (stage, code, construct)
