"""Failure clusters across a run record: the candidates that failed with the same failure signature
(signature.py), with their frequency, what produced them and example lineages (docs/harness.md, section
"Learning from the record").

A cluster is one signature STAGE:CODE:CONSTRUCT.  For each: the candidates that failed with it and their share
of all candidates with a failed stage (a candidate counts once per signature); the kernels and producers
(seed, tactic:NAME, an agent) of those candidates with counts; the first error of the earliest failure (code,
message, line) as an example; the -D values every candidate of the cluster shares (when it has two or more:
"every candidate that failed this way had S=5"); and up to `examples` example lineages - for the earliest
candidates of the cluster, the chain from their oldest ancestor to them (id, producer, defines), so one sees
the moves that led there.  Clusters come most frequent first (ties: signature)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Dict, List, Optional

from .record import RunRecord


def _first_error(diagnostics: str) -> Dict[str, Any]:
    for diagnostic in json.loads(diagnostics or "[]"):
        if diagnostic.get("severity") in ("error", "fatal"):
            return {key: diagnostic.get(key) for key in ("code", "message", "line")}
    return {}


def example_lineage(record: RunRecord, candidate_id: int) -> List[Dict[str, Any]]:
    """The chain from the candidate's oldest ancestor to it along first parents: [{id, producer, defines}]."""
    chain: List[Dict[str, Any]] = []
    current: Optional[int] = int(candidate_id)
    seen = set()
    while current is not None and current not in seen:
        seen.add(current)
        entry = record.candidate(current)
        chain.append({"id": entry["id"], "producer": entry["producer"], "defines": entry["defines"]})
        parents = sorted(entry["parents"])
        current = parents[0] if parents else None
    return list(reversed(chain))


def failure_clusters(record: RunRecord, stage: str = "", examples: int = 2) -> Dict[str, Any]:
    """{failed_candidates, candidates, clusters: [...]} (see the module's comment)."""
    rows = record.conn.execute(
        "SELECT s.candidate_id, s.stage, s.failure_signature, s.diagnostics, c.kernel, c.producer, c.defines "
        "FROM stages s JOIN candidates c ON c.id = s.candidate_id "
        "WHERE s.ok = 0 AND s.failure_signature IS NOT NULL AND (? = '' OR s.stage = ?) ORDER BY s.id",
        (stage, stage)).fetchall()
    total = record.conn.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]
    grouped: Dict[str, Dict[str, Any]] = {}
    for row in rows:
        cluster = grouped.setdefault(row["failure_signature"], {"ids": [], "rows": []})
        if row["candidate_id"] not in cluster["ids"]:
            cluster["ids"].append(row["candidate_id"])
            cluster["rows"].append(row)
    failed = {row["candidate_id"] for row in rows}
    clusters = []
    for signature, cluster in grouped.items():
        members = cluster["rows"]
        defines = [json.loads(r["defines"] or "{}") for r in members]
        shared = dict(set.intersection(*(set((k, json.dumps(v)) for k, v in d.items()) for d in defines))) \
            if len(members) > 1 else {}
        clusters.append({
            "signature": signature, "stage": members[0]["stage"], "candidates": len(members),
            "frequency": round(len(members) / len(failed), 4), "candidate_ids": sorted(cluster["ids"]),
            "kernels": dict(Counter(r["kernel"] for r in members).most_common()),
            "producers": dict(Counter(r["producer"] for r in members).most_common()),
            "example_error": _first_error(members[0]["diagnostics"]),
            "shared_defines": {k: json.loads(v) for k, v in sorted(shared.items())},
            "example_lineages": [example_lineage(record, r["candidate_id"]) for r in members[:examples]]})
    clusters.sort(key=lambda c: (-c["candidates"], c["signature"]))
    return {"candidates": total, "failed_candidates": len(failed), "clusters": clusters}


def clusters_text(report: Dict[str, Any]) -> str:
    """The clusters as text: one paragraph per signature."""
    lines = ["%d of %d candidates failed a stage; %d failure signatures" % (
        report["failed_candidates"], report["candidates"], len(report["clusters"]))]
    for cluster in report["clusters"]:
        lines.append("")
        lines.append("%-36s %3d candidates (%.0f%% of failed)  ids %s" % (
            cluster["signature"], cluster["candidates"], 100 * cluster["frequency"],
            ",".join(str(i) for i in cluster["candidate_ids"][:12]) + (" ..." if cluster["candidates"] > 12 else "")))
        lines.append("    kernels %s; producers %s" % (
            ", ".join("%s x%d" % kv for kv in cluster["kernels"].items()),
            ", ".join("%s x%d" % kv for kv in cluster["producers"].items())))
        if cluster["example_error"]:
            lines.append("    e.g. %s line %s: %s" % (cluster["example_error"].get("code") or "-",
                                                     cluster["example_error"].get("line"),
                                                     cluster["example_error"].get("message")))
        if cluster["shared_defines"]:
            lines.append("    every one has %s" % " ".join("%s=%s" % kv for kv in cluster["shared_defines"].items()))
        for chain in cluster["example_lineages"]:
            lines.append("    lineage " + " -> ".join(
                "%d (%s%s)" % (step["id"], step["producer"] or "-",
                               "".join(" %s=%s" % kv for kv in sorted(step["defines"].items()))) for step in chain))
    return "\n".join(lines) + "\n"
