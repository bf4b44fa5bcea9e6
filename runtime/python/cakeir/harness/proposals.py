"""Proposals learned from a run record: code that recurs across successful candidates, proposed as `fn`
primitives, and tactic sequences that improved several lineages, proposed as new tactics (docs/harness.md,
section "Learning from the record").  A proposal is data with its evidence (candidate ids); nothing is
merged: a person (or an agent, through the test corpus) decides.

Successful candidate: no failed stage, no failed correctness check, and at least one timing or estimate.

Primitives.  Each successful candidate's IR with comments, blank lines and indentation removed (a list of
normalised lines; candidates with the same IR text count once).  A window of `min_lines` consecutive lines
that occurs in at least `min_sources` distinct IR texts, none of whose lines opens a `kernel` or `fn`
(already a unit) and whose braces balance, is recurring; overlapping recurring windows found in the same
texts merge into one maximal block.  A proposal: the block's lines, the identifiers it uses but does not
declare (`let`/`var`/`for`: what an `fn` would take as parameters or read from the kernel), the candidates
and kernels it occurs in.  Blocks are ranked by lines x occurrences.

Tactics.  A step is a recorded candidate whose producer is `tactic:A+B...` (the search's chained tactics)
with one parent; it improved when the child is faster than the parent: on the measured times where both
have timings at common shapes (geometric mean of each shape's fastest time), else on the cost model's
predictions at common shapes.  A sequence is the tactic names of one step (when it chains two or more) or
of two consecutive improving steps (grandparent -> parent -> child).  A sequence is proposed when it
improved at least `min_lineages` distinct starting candidates; its evidence lists (start, end, before,
after, basis) for each, and how often it was applied from the record's steps without improving (for a
chained step)."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .record import RunRecord

_COMMENT = re.compile(r"//[^\n]*")
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
_DECLARED = re.compile(r"\b(?:let|var|for)\s+([A-Za-z_][A-Za-z0-9_]*)")
_UNIT_HEAD = re.compile(r"^(?:kernel|fn|target)\b")
_KEYWORDS = {"let", "var", "for", "in", "if", "else", "while", "return", "unroll", "true", "false", "and", "or",
             "not", "shared", "mbarrier", "barrier", "wait", "arrive", "inf"}


def successful_candidates(record: RunRecord) -> List[Dict[str, Any]]:
    """Candidates with no failed stage or correctness check and with a timing or an estimate, oldest first."""
    rows = record.conn.execute(
        "SELECT id, ir_sha256, ir_text, kernel FROM candidates WHERE "
        "id NOT IN (SELECT candidate_id FROM stages WHERE ok = 0) AND "
        "id NOT IN (SELECT candidate_id FROM correctness WHERE passed = 0) AND "
        "(id IN (SELECT candidate_id FROM timings) OR id IN (SELECT candidate_id FROM estimates)) ORDER BY id")
    return [dict(r) for r in rows]


def normalised_lines(ir_text: str) -> List[str]:
    lines = []
    for line in _COMMENT.sub("", ir_text).splitlines():
        text = " ".join(line.split())
        if text:
            lines.append(text)
    return lines


def _balanced(lines: Sequence[str]) -> bool:
    depth = 0
    for line in lines:
        for char in line:
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth < 0:
                return False
    return depth == 0


def free_names(lines: Sequence[str]) -> List[str]:
    """Identifiers the block uses and does not declare, in order of first use (keywords and type-like
    builtins left out: a rough list of what an `fn` would take)."""
    text = "\n".join(lines)
    declared = set(_DECLARED.findall(text))
    names: List[str] = []
    for name in _IDENT.findall(text):
        if name in declared or name in _KEYWORDS or name in names or re.fullmatch(r"[iuf]\d+|bf16|f16|tid|block", name):
            continue
        names.append(name)
    return names


def propose_primitives(record: RunRecord, min_lines: int = 4, min_sources: int = 2,
                       limit: int = 10) -> List[Dict[str, Any]]:
    """Recurring blocks of successful candidates (see the module's comment), best first."""
    sources: Dict[str, Dict[str, Any]] = {}
    for candidate in successful_candidates(record):
        entry = sources.setdefault(candidate["ir_sha256"], {"lines": normalised_lines(candidate["ir_text"]),
                                                            "ids": [], "kernels": set()})
        entry["ids"].append(candidate["id"])
        entry["kernels"].add(candidate["kernel"])
    windows: Dict[Tuple[str, ...], set] = defaultdict(set)
    for sha, entry in sources.items():
        lines = entry["lines"]
        for start in range(len(lines) - min_lines + 1):
            window = tuple(lines[start:start + min_lines])
            if not any(_UNIT_HEAD.match(line) for line in window):
                windows[window].add(sha)
    recurring = {window: shas for window, shas in windows.items() if len(shas) >= min_sources}
    blocks: Dict[Tuple[str, ...], frozenset] = {}
    for sha, entry in sources.items():
        lines = entry["lines"]
        start = 0
        while start <= len(lines) - min_lines:
            window = tuple(lines[start:start + min_lines])
            if window not in recurring:
                start += 1
                continue
            found = recurring[window]
            end = start + min_lines
            while end < len(lines) and recurring.get(tuple(lines[end - min_lines + 1:end + 1])) == found:
                end += 1
            balanced = _largest_balanced(lines[start:end], min_lines)
            if balanced and tuple(balanced) not in blocks:
                blocks[tuple(balanced)] = frozenset(found)
            start = end
    proposals: List[Dict[str, Any]] = []
    for block, shas in blocks.items():
        if any(len(other) > len(block) and shas <= other_shas and _contains(other, block)
               for other, other_shas in blocks.items()):
            continue                                # part of a longer block found in the same sources
        ids = sorted(i for sha in shas for i in sources[sha]["ids"])
        kernels = sorted({k for sha in shas for k in sources[sha]["kernels"]})
        proposals.append({"kind": "fn-primitive", "lines": list(block), "occurs_in_sources": len(shas),
                          "candidates": ids, "kernels": kernels, "parameters": free_names(block),
                          "score": len(block) * len(shas)})
    proposals.sort(key=lambda p: (-int(p["score"]), p["lines"]))
    for index, proposal in enumerate(proposals[:limit]):
        proposal["name"] = "primitive_%d" % (index + 1)
    return proposals[:limit]


def _contains(outer: Sequence[str], inner: Sequence[str]) -> bool:
    size = len(inner)
    return any(tuple(outer[i:i + size]) == tuple(inner) for i in range(len(outer) - size + 1))


def _largest_balanced(lines: Sequence[str], min_lines: int) -> Optional[List[str]]:
    """The longest run of at least min_lines lines whose braces balance (the earliest of equal length)."""
    for size in range(len(lines), min_lines - 1, -1):
        for start in range(len(lines) - size + 1):
            if _balanced(lines[start:start + size]):
                return list(lines[start:start + size])
    return None


def _fitness(record: RunRecord, candidate_id: int) -> Dict[str, Dict[str, float]]:
    """{"measured": {shape: fastest ms}, "predicted": {shape: fastest predicted ms}}."""
    measured = {r[0]: r[1] for r in record.conn.execute(
        "SELECT shape, MIN(time_ms) FROM timings WHERE candidate_id = ? AND shape != '' GROUP BY shape", (candidate_id,))}
    predicted = {r[0]: r[1] for r in record.conn.execute(
        "SELECT shape, MIN(predicted_ms) FROM estimates WHERE candidate_id = ? GROUP BY shape", (candidate_id,))}
    return {"measured": measured, "predicted": predicted}


def compare(record: RunRecord, before: int, after: int) -> Optional[Dict[str, Any]]:
    """Geometric means of `before` and `after` over their common shapes, measured when both have timings there,
    else predicted; None when they share no shape."""
    first, second = _fitness(record, before), _fitness(record, after)
    for basis in ("measured", "predicted"):
        shapes = sorted(set(first[basis]) & set(second[basis]))
        if shapes:
            mean = lambda values: math.exp(sum(math.log(v) for v in values) / len(values))  # noqa: E731
            return {"before_ms": mean([first[basis][s] for s in shapes]),
                    "after_ms": mean([second[basis][s] for s in shapes]), "basis": basis, "shapes": shapes}
    return None


def propose_tactics(record: RunRecord, min_lineages: int = 2) -> List[Dict[str, Any]]:
    """Tactic sequences that improved at least min_lineages distinct starting candidates (module comment)."""
    steps = []
    for row in record.conn.execute("SELECT c.id, c.producer, l.parent_id FROM candidates c JOIN lineage l "
                                   "ON l.child_id = c.id WHERE c.producer LIKE 'tactic:%' ORDER BY c.id"):
        if record.conn.execute("SELECT COUNT(*) FROM lineage WHERE child_id = ?", (row["id"],)).fetchone()[0] != 1:
            continue
        if record.conn.execute("SELECT COUNT(*) FROM stages WHERE candidate_id = ? AND ok = 0 AND stage != 'prune'",
                               (row["id"],)).fetchone()[0]:
            continue
        result = compare(record, row["parent_id"], row["id"])
        steps.append({"child": row["id"], "parent": row["parent_id"],
                      "tactics": row["producer"][len("tactic:"):].split("+"), "result": result,
                      "improved": bool(result and result["after_ms"] < result["before_ms"])})
    by_child = {step["child"]: step for step in steps}
    evidence: Dict[Tuple[str, ...], Dict[int, Dict[str, Any]]] = defaultdict(dict)
    applied: Dict[Tuple[str, ...], int] = defaultdict(int)
    for step in steps:
        if len(step["tactics"]) >= 2:
            applied[tuple(step["tactics"])] += 1
            if step["improved"]:
                evidence[tuple(step["tactics"])].setdefault(step["parent"], dict(
                    start=step["parent"], end=step["child"], **{k: step["result"][k] for k in ("before_ms", "after_ms", "basis")}))
        previous = by_child.get(step["parent"])
        if previous and previous["improved"] and step["improved"]:
            sequence = tuple(previous["tactics"] + step["tactics"])
            result = compare(record, previous["parent"], step["child"])
            if result and result["after_ms"] < result["before_ms"]:
                evidence[sequence].setdefault(previous["parent"], dict(
                    start=previous["parent"], end=step["child"], via=step["parent"],
                    **{k: result[k] for k in ("before_ms", "after_ms", "basis")}))
    proposals: List[Dict[str, Any]] = []
    for sequence, found in evidence.items():
        if len(found) < min_lineages:
            continue
        items = [found[key] for key in sorted(found)]
        speedups = [item["before_ms"] / item["after_ms"] for item in items]
        proposals.append({"kind": "tactic-sequence", "name": "+".join(sequence), "tactics": list(sequence),
                          "improved_lineages": len(items), "applied_as_one_step": applied.get(sequence, 0),
                          "geomean_speedup": round(math.exp(sum(math.log(s) for s in speedups) / len(speedups)), 4),
                          "evidence": items})
    proposals.sort(key=lambda p: (-p["improved_lineages"], -p["geomean_speedup"], p["name"]))
    return proposals


def proposals_document(record: RunRecord, min_lines: int = 4, min_sources: int = 2,
                       min_lineages: int = 2) -> Dict[str, Any]:
    """The proposal file's content (format cake-proposals)."""
    return {"format": "cake-proposals", "version": 1, "record": record.path,
            "note": "proposals only: nothing here is merged; each lists its evidence (candidate ids)",
            "primitives": propose_primitives(record, min_lines, min_sources),
            "tactics": propose_tactics(record, min_lineages)}


def proposals_text(document: Dict[str, Any]) -> str:
    lines = ["%d fn primitive proposals, %d tactic proposals (%s)" % (
        len(document["primitives"]), len(document["tactics"]), document["record"])]
    for proposal in document["primitives"]:
        lines.append("")
        lines.append("%s: %d lines in %d distinct sources (candidates %s; kernels %s); uses %s" % (
            proposal["name"], len(proposal["lines"]), proposal["occurs_in_sources"],
            ",".join(str(i) for i in proposal["candidates"]), ", ".join(proposal["kernels"]),
            ", ".join(proposal["parameters"]) or "-"))
        lines.extend("    " + line for line in proposal["lines"])
    for proposal in document["tactics"]:
        lines.append("")
        lines.append("tactic %s: improved %d lineages (geomean speed-up %.3fx)" % (
            proposal["name"], proposal["improved_lineages"], proposal["geomean_speedup"]))
        for item in proposal["evidence"]:
            lines.append("    %d -> %d: %.4f -> %.4f ms (%s)" % (item["start"], item["end"], item["before_ms"],
                                                             item["after_ms"], item["basis"]))
    return "\n".join(lines) + "\n"
