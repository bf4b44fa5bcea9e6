"""Rule proposal: from a reduced failing kernel to a rule for `cakec --rules` that the good corpus accepts
(docs/rules.md, "Proposal").

Input: a kernel the verifier passes and the interpreter rejects (usually the output of reduce.reduce_kernel),
and the interpreter's failure (code, line).  Output: the first candidate rule, from a small set of templates,
that
  (a) rejects the kernel - `cakec --verify-only --rules` reports E0625 for it at the failing line - and
  (b) accepts every kernel of the good corpus (no E0625 for it in any of them).

Templates (`candidate_rules`): "an operation of kind OP on a buffer is preceded by an operation of kind in
AFTER on it [with no RESET in between]".  OP is the kind of the failing line (tma.store, wgmma, ldmatrix,
or a shared load); AFTER / RESET come from the failure's class (a read never written: the shared writers; an
async read of a generic write without a fence: fence.proxy_async after the generic writes; a race: a
barrier after the last write; an mbarrier used before init: mbarrier.init), then from every other kind that
occurs in the kernel.  Each template is instantiated from the most general form down: every buffer before
the failing buffer only, per-role paths before the kernel's text order (scope "kernel"), "all paths" before
"some path".  Candidates are ranked in that order and the first
one that passes (a) and (b) is proposed.

Cost: all candidates go into one rules file, so the kernel and each corpus file are verified once (E0625
names the rule).  The corpus (`default_corpus`) is samples/*.cake and kernels/**/*.cake with their default
compile-time values; a file with any error other than E0625 under the candidates does not verify cleanly on
its own, is not a good example and is skipped (reported in `Proposal.skipped`).
"""

from __future__ import annotations

import glob
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from .. import _tools
from .reduce import cakec_json

SHARED_WRITERS = ["shared.store", "stmatrix", "cp.async", "tma.load"]
GENERIC_WRITERS = ["shared.store", "stmatrix", "cp.async"]
BARRIERS = ["syncthreads", "sync", "cluster.sync", "wait"]

# Interpreter failure code -> (after, reset) pairs to try, most specific first.
FAILURE_TEMPLATES: Dict[str, List[Tuple[List[str], List[str]]]] = {
    "E0914": [(SHARED_WRITERS, [])],                                   # a read of shared memory never written
    "E0913": [(["fence.proxy_async"], GENERIC_WRITERS)],               # async read of an unfenced generic write
    "E0912": [(BARRIERS, GENERIC_WRITERS)],                             # a shared-memory race
    "E0910": [(["mbarrier.init"], [])],                                 # an mbarrier used before init
    "E0911": [(["wait"], ["arrive"])],                                  # too many arrivals on a phase
}

_KIND_PATTERNS = [
    ("tma.store.wait", r"\btma\.store\.wait\b"), ("tma.store", r"\btma\.store\b"), ("tma.load", r"\btma\.load\b"),
    ("cp.async.wait", r"\bcp\.async\.wait\b"), ("cp.async", r"\bcp\.async\b"), ("ldmatrix", r"\bldmatrix\b"),
    ("stmatrix", r"\bstmatrix\b"), ("wgmma.fence", r"\bwgmma\.fence\b"), ("wgmma.commit", r"\bwgmma\.commit\b"),
    ("wgmma.wait", r"\bwgmma\.wait\b"), ("wgmma", r"\bwgmma\b(?!\.)"), ("fence.proxy_async", r"\bfence\.proxy_async\b"),
    ("syncthreads", r"\bsyncthreads\b"), ("sync", r"(?<![\w.])sync\s+\w"), ("cluster.sync", r"\bcluster\.sync\b"),
    ("syncwarp", r"\bsyncwarp\b"), ("mbarrier.init", r"\bmbarrier\.init\b"), ("arrive", r"(?<![\w.])arrive\b"),
    ("expect_tx", r"\bexpect_tx\b"), ("wait", r"(?<![\w.])wait\s+\w"),
]


# The forms of a template, most general first: (only the failing buffer?, scope, paths).  A per-role rule is
# stronger than a kernel-scope one (a write by another role earlier in the text does not count), "all paths"
# stronger than "some".
_FORMS = [(False, "role", "all"), (False, "role", "some"), (False, "kernel", "all"), (False, "kernel", "some"),
          (True, "role", "all"), (True, "role", "some"), (True, "kernel", "all"), (True, "kernel", "some")]


@dataclass
class Proposal:
    """The accepted rule (None when no candidate passed), every candidate tried with why it was rejected, and
    the corpus as used."""
    rule: Optional[Dict[str, object]]
    candidates: List[Dict[str, object]] = field(default_factory=list)
    rejected: Dict[str, str] = field(default_factory=dict)      # rule name -> why
    corpus: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)


def repo_root() -> str:
    return os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def default_corpus(root: Optional[str] = None) -> List[str]:
    root = root or repo_root()
    files = sorted(glob.glob(os.path.join(root, "samples", "*.cake")))
    files += sorted(glob.glob(os.path.join(root, "kernels", "**", "*.cake"), recursive=True))
    return files


def shared_arrays(text: str) -> List[str]:
    return re.findall(r"\bshared\s+(\w+)\s*:", text)


def kinds_in(text: str) -> List[str]:
    found = []
    for kind, pattern in _KIND_PATTERNS:
        if re.search(pattern, text) and kind not in found:
            found.append(kind)
    if any(re.search(r"\b%s\s*\[[^\]]*\]\s*(\[[^\]]*\]\s*)*[-+*/]?=(?!=)" % re.escape(a), text)
           for a in shared_arrays(text)):
        found.append("shared.store")
    return found


def failing_kind(line: str, arrays: Sequence[str]) -> Tuple[str, Optional[str]]:
    """The rule operation kind of the failing line, and the shared array it touches (when one is named)."""
    buffer = next((a for a in arrays if re.search(r"\b%s\b" % re.escape(a), line)), None)
    for kind in ("tma.store", "wgmma", "ldmatrix"):
        if re.search(r"\b%s\b" % re.escape(kind), line):
            return kind, buffer
    return "shared.load", buffer


def candidate_rules(text: str, failure_code: str, failure_line: int) -> List[Dict[str, object]]:
    lines = text.splitlines()
    line = lines[failure_line - 1] if 0 < failure_line <= len(lines) else ""
    arrays = shared_arrays(text)
    op, buffer = failing_kind(line, arrays)
    present = kinds_in(text)
    pairs = list(FAILURE_TEMPLATES.get(failure_code, []))
    for kind in present:                                   # generic templates: any other kind present
        if kind != op:
            pairs.append(([kind], []))
    out: List[Dict[str, object]] = []
    seen: Set[str] = set()
    for after, reset in pairs:
        for only_failing, scope, paths in _FORMS:
            if only_failing and not buffer:
                continue
            buffers = [buffer] if only_failing else []
            key = json.dumps([after, reset, buffers, scope, paths])
            if key in seen:
                continue
            seen.add(key)
            name = "proposed-%d" % len(out)
            rule: Dict[str, object] = {
                "name": name,
                "message": "%s%s must be preceded by %s%s" % (
                    op, " of '%s'" % buffers[0] if buffers else "", " or ".join(after),
                    " with no %s in between" % " or ".join(reset) if reset else ""),
                "op": op, "after": after, "paths": paths, "scope": scope,
                "comment": "proposed from an interpreter failure %s at line %d" % (failure_code, failure_line)}
            if reset:
                rule["reset"] = reset
            if buffers:
                rule["buffers"] = buffers
            out.append(rule)
    return out


def _verify(cakec: str, path: str, rules_path: Optional[str], timeout: float) -> Tuple[int, List[Dict[str, object]]]:
    command = [cakec, path, "--verify-only", "--diagnostics-format", "json", "--error-limit", "0"]
    if rules_path:
        command += ["--rules", rules_path]
    return cakec_json(command, timeout)


_VIOLATION = re.compile(r"^rule '([^']+)' violated")


def _violations(diags: Sequence[Dict[str, object]]) -> List[Tuple[str, int]]:
    out = []
    for d in diags:
        m = _VIOLATION.match(str(d.get("message", "")))
        if d.get("code") == "E0625" and m:
            out.append((m.group(1), int(str(d.get("line", 0) or 0))))
    return out


def write_rules(rules: Sequence[Dict[str, object]], path: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"rules": list(rules)}, f, indent=2)
        f.write("\n")


def propose_rule(text: str, failure_code: str, failure_line: int, *, corpus: Optional[Sequence[str]] = None,
                 cakec: Optional[str] = None, timeout: float = 300.0) -> Proposal:
    exe = _tools.find_cakec(cakec)
    candidates = candidate_rules(text, failure_code, failure_line)
    proposal = Proposal(rule=None, candidates=candidates)
    if not candidates:
        return proposal
    with tempfile.TemporaryDirectory(prefix="cake-propose-") as folder:
        rules_path = os.path.join(folder, "candidates.json")
        write_rules(candidates, rules_path)
        kernel_path = os.path.join(folder, "kernel.cake")
        with open(kernel_path, "w", encoding="utf-8") as f:
            f.write(text)
        # (a) the candidate rejects the kernel at the failing line
        _, diags = _verify(exe, kernel_path, rules_path, timeout)
        catching = {name for name, line in _violations(diags) if line == failure_line}
        alive = []
        for rule in candidates:
            if rule["name"] in catching:
                alive.append(rule)
            else:
                proposal.rejected[str(rule["name"])] = "does not reject the reduced kernel at line %d" % failure_line
        if not alive:
            return proposal
        write_rules(alive, rules_path)
        # (b) the good corpus accepts it
        for path in (list(corpus) if corpus is not None else default_corpus()):
            # One run with the candidates: a file with an error other than E0625 does not verify cleanly on
            # its own and is no good example (skipped).
            rc, diags = _verify(exe, path, rules_path, timeout)
            if rc < 0 or any(d.get("severity") in ("error", "fatal") and d.get("code") != "E0625" for d in diags):
                proposal.skipped.append(path)
                continue
            proposal.corpus.append(path)
            for name, line in _violations(diags):
                proposal.rejected.setdefault(name, "rejects the good kernel %s (line %d)" % (path, line))
        for rule in alive:
            if rule["name"] not in proposal.rejected:
                proposal.rule = rule
                break
    return proposal
