"""cakec's diagnostics of an editor buffer, as Language Server Protocol diagnostics and quick fixes.

How: the buffer goes to `cakec - --verify-only --diagnostics-format=json` on standard input (nothing is
written next to the user's file, or anywhere else); with `--no-verify` added when only the front end and
code generation checks should run (the verifier's Z3 proofs take longer: the server skips them while the
user types, unless told otherwise).  cakec prints one JSON array on stdout whatever happens (docs/cli.md,
"Output conventions"); each element becomes one LSP Diagnostic:

  severity   error / fatal -> Error, warning -> Warning, note -> Information
  code       the diagnostic's code (E0301); source "cakec"
  range      its line / column .. end_line / end_column (cakec: 1-based, byte columns, end exclusive)
  message    the message, then "hint: ..." when cakec gave a hint
  related    one DiagnosticRelatedInformation per note, at the note's place in the same buffer
  data       {"fixits": [...]}: cakec's fix-its, so that a client that sends the diagnostic back in a code
             action request carries them too

A diagnostic's fix-its (all of them together: a conversion inserts `f32(` and `)`) form one quick-fix code
action whose WorkspaceEdit applies them to the buffer.  Diagnostics without a place (command-line errors)
are put at the buffer's start.  `explain` gives a code's explanation (`cakec --explain E0640`), which hover
shows over a diagnostic's range.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from lsprotocol import types

from .positions import UTF16, column_from_byte_column, split_lines

STDIN_NAME = "<stdin>"

_SEVERITY = {"error": types.DiagnosticSeverity.Error, "fatal": types.DiagnosticSeverity.Error,
             "warning": types.DiagnosticSeverity.Warning, "note": types.DiagnosticSeverity.Information}


class CakecFailed(Exception):
    """cakec could not be run, or did not print a JSON array (what it printed is the message)."""


@dataclass
class Finding:
    """One cakec diagnostic: the LSP form and the edits of its fix-its."""
    diagnostic: types.Diagnostic
    edits: List[types.TextEdit] = field(default_factory=list)


def cakec_command(cakec: str, verify: bool, extra_args: Sequence[str] = ()) -> List[str]:
    command = [cakec, "-", "--verify-only", "--diagnostics-format=json"]
    if not verify:
        command.append("--no-verify")
    return command + list(extra_args)


async def run_cakec(command: List[str], text: str, timeout: float = 120.0) -> List[Dict[str, Any]]:
    """cakec's JSON diagnostics of `text`.  Cancelling the caller kills cakec."""
    try:
        process = await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.PIPE,
                                                       stderr=asyncio.subprocess.PIPE)
    except OSError as e:
        raise CakecFailed("cannot run %s: %s" % (command[0], e)) from e
    try:
        out, err = await asyncio.wait_for(process.communicate(text.encode("utf-8")), timeout)
    except (asyncio.CancelledError, asyncio.TimeoutError):
        if process.returncode is None:
            process.kill()
            await process.wait()
        raise
    try:
        parsed = json.loads(out.decode("utf-8", errors="replace"))
    except ValueError:
        parsed = None
    if not isinstance(parsed, list):
        raise CakecFailed("%s exited %s without JSON diagnostics: %s" % (command[0], process.returncode,
                                                                       err.decode("utf-8", errors="replace")[-500:]))
    return parsed


def explain(cakec: str, code: str) -> Optional[str]:
    """What `cakec --explain CODE` prints, or None when it fails."""
    try:
        result = subprocess.run([cakec, "--explain", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = result.stdout.decode("utf-8", errors="replace").strip()
    return text if result.returncode == 0 and text else None


def _range(lines: List[str], item: Dict[str, Any], encoding: str) -> types.Range:
    def position(line: Any, column: Any) -> types.Position:
        if not isinstance(line, int) or line < 1:
            return types.Position(line=0, character=0)
        index = min(line - 1, len(lines) - 1)
        byte_column = column - 1 if isinstance(column, int) and column >= 1 else 0
        return types.Position(line=index, character=column_from_byte_column(lines[index], byte_column, encoding))
    start = position(item.get("line"), item.get("column"))
    end = position(item.get("end_line") or item.get("line"), item.get("end_column") or item.get("column"))
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return types.Range(start=start, end=end)


def _in_buffer(item: Dict[str, Any]) -> bool:
    return item.get("file") == STDIN_NAME and isinstance(item.get("line"), int) and item["line"] >= 1


def to_findings(items: List[Dict[str, Any]], uri: str, text: str, encoding: str = UTF16) -> List[Finding]:
    """cakec's JSON diagnostics of the buffer `text` (named `uri`) as LSP diagnostics with their fix-its, columns
    in the code units of `encoding` (positions.py)."""
    lines = split_lines(text)
    findings = []
    for item in items:
        message = str(item.get("message", ""))
        related = []
        for note in item.get("notes") or []:
            if _in_buffer(note):
                related.append(types.DiagnosticRelatedInformation(
                    location=types.Location(uri=uri, range=_range(lines, note, encoding)), message=str(note.get("message", ""))))
            else:
                message += "\nnote: %s" % note.get("message", "")
        if item.get("hint"):
            message += "\nhint: %s" % item["hint"]
        fixits = [f for f in item.get("fixits") or [] if _in_buffer(f)]
        edits = [types.TextEdit(range=_range(lines, f, encoding), new_text=str(f.get("replacement", ""))) for f in fixits]
        placed = _in_buffer(item)
        diagnostic = types.Diagnostic(
            range=_range(lines, item, encoding) if placed else types.Range(start=types.Position(line=0, character=0),
                                                                  end=types.Position(line=0, character=0)),
            message=message,
            severity=_SEVERITY.get(str(item.get("severity")), types.DiagnosticSeverity.Error),
            code=item.get("code") or None,
            source="cakec",
            related_information=related or None,
            data={"fixits": fixits} if fixits else None,
        )
        findings.append(Finding(diagnostic, edits))
    return findings


def contains(r: types.Range, p: types.Position) -> bool:
    return (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and \
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)


def _fix_title(finding: Finding) -> str:
    hint = finding.diagnostic.message.split("\nhint: ")[-1] if "\nhint: " in finding.diagnostic.message else ""
    if hint.startswith("did you mean"):
        return "Change to %s" % hint[len("did you mean "):].rstrip("?")
    if len(finding.edits) == 1:
        edit = finding.edits[0]
        if edit.range.start == edit.range.end:
            return "Insert '%s'" % edit.new_text
        return "Replace with '%s'" % edit.new_text
    return "Apply cakec's fix-it (%s)" % ", ".join("'%s'" % e.new_text for e in finding.edits)


def code_actions(uri: str, findings: List[Finding], where: types.Range,
                 only: Optional[Sequence[str]] = None) -> List[types.CodeAction]:
    """One quick fix per diagnostic with fix-its whose range meets `where`."""
    if only is not None and not any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only):
        return []
    actions = []
    for finding in findings:
        if not finding.edits or not _overlaps(finding.diagnostic.range, where):
            continue
        code = finding.diagnostic.code
        actions.append(types.CodeAction(
            title="%s%s" % (_fix_title(finding), " [%s]" % code if code else ""),
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[finding.diagnostic],
            is_preferred=True,
            edit=types.WorkspaceEdit(changes={uri: finding.edits}),
        ))
    return actions
