"""The run record: every candidate kernel an agent or tactic produced, with what the compiler and the GPU said
about it, in one SQLite database (schema.py; docs/harness.md, sections "Schema" and "Python API").

A candidate is IR text plus the -D defines and the target it is compiled with; the pair (sha256 of the text,
defines, arch) identifies it, so recording the same candidate twice returns the first id (and adds any new
parents).  Its outcomes are rows beside it: one per compiler stage (verify, estimate, compile, run) with the
diagnostics and failure signature, the cost model's prediction per kernel and shape, ptxas's resources per
kernel, correctness checks and timings.  Queries answer what an evolution loop asks: the best candidates for
a kernel at a shape (measured, or predicted), a candidate's ancestors and descendants, the unified diff of
two candidates, how often each failure signature occurred; export writes everything as JSON lines."""

from __future__ import annotations

import contextlib
import datetime
import difflib
import hashlib
import json
import sqlite3
from typing import IO, Any, Dict, Iterable, Iterator, List, Optional, Sequence

from .compiler import shape_text
from .schema import open_database


def ir_sha256(ir_text: str) -> str:
    return hashlib.sha256(ir_text.encode("utf-8")).hexdigest()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _canonical(value: Optional[Dict[str, Any]]) -> str:
    return json.dumps(value or {}, sort_keys=True, separators=(",", ":"))


class RunRecord:
    """One run record database (created and migrated when opened)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.conn = open_database(path)
        self.conn.row_factory = sqlite3.Row

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "RunRecord":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception): other writers wait (busy_timeout)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- writing ------------------------------------------------------------------------------------------

    def add_candidate(self, ir_text: str, defines: Optional[Dict[str, Any]] = None, arch: str = "",
                      kernel: str = "", producer: str = "", parents: Sequence[int] = ()) -> int:
        """The candidate's id, recording it (and its parents) when new; KeyError for an unknown parent."""
        for parent in parents:
            self.candidate(parent)
        digest = ir_sha256(ir_text)
        with self._transaction():
            self.conn.execute("INSERT OR IGNORE INTO candidates (ir_sha256, ir_text, defines, arch, kernel, producer, "
                              "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (digest, ir_text, _canonical(defines), arch, kernel, producer, _now()))
            row = self.conn.execute("SELECT id FROM candidates WHERE ir_sha256 = ? AND defines = ? AND arch = ?",
                                    (digest, _canonical(defines), arch)).fetchone()
            candidate_id = int(row[0])
            for parent in parents:
                if int(parent) != candidate_id:
                    self.conn.execute("INSERT OR IGNORE INTO lineage (child_id, parent_id) VALUES (?, ?)",
                                      (candidate_id, int(parent)))
        return candidate_id

    def add_stage(self, candidate_id: int, stage: str, ok: bool, exit_code: Optional[int] = None,
                  diagnostics: Optional[List[Dict[str, Any]]] = None, output: Optional[Dict[str, Any]] = None,
                  shape: Any = None, failure_signature: Optional[str] = None, compiler_version: str = "",
                  seconds: Optional[float] = None) -> int:
        """Records one stage's outcome.  An estimate stage's output["estimate"] (cakec --estimate --json) also
        fills the estimates table, a compile stage's output["resources"] (ptxas -v) the resources table."""
        self.candidate(candidate_id)
        output = output or {}
        shape_key = shape_text(shape)
        with self._transaction():
            cursor = self.conn.execute(
                "INSERT INTO stages (candidate_id, stage, shape, ok, exit_code, diagnostics, output, failure_signature, "
                "compiler_version, seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (candidate_id, stage, shape_key, 1 if ok else 0, exit_code, json.dumps(diagnostics or []),
                 json.dumps(output), None if ok else failure_signature, compiler_version, seconds, _now()))
            stage_id = int(cursor.lastrowid or 0)
            estimate = output.get("estimate")
            if ok and isinstance(estimate, dict):
                for kernel in estimate.get("kernels", []):
                    if "predicted_ms" not in kernel:
                        continue
                    self.conn.execute(
                        "INSERT INTO estimates (stage_id, candidate_id, kernel, shape, machine, predicted_ms, bottleneck) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (stage_id, candidate_id, kernel.get("kernel", ""), shape_text(kernel.get("shape")) or shape_key,
                         kernel.get("machine", ""), float(kernel["predicted_ms"]), kernel.get("bottleneck", "")))
            for row in output.get("resources", []) if ok else []:
                self.conn.execute(
                    "INSERT INTO resources (stage_id, candidate_id, kernel, registers, spill_stores, spill_loads, "
                    "static_smem, dynamic_smem, stack) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (stage_id, candidate_id, row.get("kernel", ""), row.get("registers"), row.get("spill_stores"),
                     row.get("spill_loads"), row.get("static_smem"), row.get("dynamic_smem"), row.get("stack")))
        return stage_id

    def add_correctness(self, candidate_id: int, passed: bool, kernel: str = "", shape: Any = None,
                        max_abs_error: Optional[float] = None, max_rel_error: Optional[float] = None,
                        mismatches: Optional[int] = None, method: str = "",
                        detail: Optional[Dict[str, Any]] = None) -> int:
        """Records a correctness check (method: "interpreter", "gpu", ...)."""
        self.candidate(candidate_id)
        with self._transaction():
            cursor = self.conn.execute(
                "INSERT INTO correctness (candidate_id, kernel, shape, passed, max_abs_error, max_rel_error, mismatches, "
                "method, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (candidate_id, kernel, shape_text(shape), 1 if passed else 0, max_abs_error, max_rel_error,
                 mismatches, method, json.dumps(detail or {}), _now()))
        return int(cursor.lastrowid or 0)

    def add_timing(self, candidate_id: int, time_ms: float, kernel: str = "", shape: Any = None, gpu: str = "",
                   sm_clock_mhz: Optional[float] = None, mem_clock_mhz: Optional[float] = None, peer: str = "",
                   peer_time_ms: Optional[float] = None, seed: Optional[int] = None,
                   detail: Optional[Dict[str, Any]] = None) -> int:
        """Records one measured time, with the GPU, its clocks and the peer timed in the same run."""
        self.candidate(candidate_id)
        with self._transaction():
            cursor = self.conn.execute(
                "INSERT INTO timings (candidate_id, kernel, shape, time_ms, gpu, sm_clock_mhz, mem_clock_mhz, peer, "
                "peer_time_ms, seed, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (candidate_id, kernel, shape_text(shape), float(time_ms), gpu, sm_clock_mhz, mem_clock_mhz, peer,
                 peer_time_ms, seed, json.dumps(detail or {}), _now()))
        return int(cursor.lastrowid or 0)

    # -- reading ------------------------------------------------------------------------------------------

    def candidate(self, candidate_id: int, full: bool = False) -> Dict[str, Any]:
        """A candidate as a dict (with its parents; with full, every outcome recorded for it); KeyError when
        there is none."""
        row = self.conn.execute("SELECT * FROM candidates WHERE id = ?", (int(candidate_id),)).fetchone()
        if row is None:
            raise KeyError("no candidate %s in %s" % (candidate_id, self.path))
        result = dict(row)
        result["defines"] = json.loads(result["defines"])
        result["parents"] = [r[0] for r in self.conn.execute(
            "SELECT parent_id FROM lineage WHERE child_id = ? ORDER BY parent_id", (int(candidate_id),))]
        if full:
            result["stages"] = [self._stage_dict(r) for r in self.conn.execute(
                "SELECT * FROM stages WHERE candidate_id = ? ORDER BY id", (int(candidate_id),))]
            for table in ("estimates", "resources", "correctness", "timings"):
                rows = [dict(r) for r in self.conn.execute(
                    "SELECT * FROM %s WHERE candidate_id = ? ORDER BY rowid" % table, (int(candidate_id),))]
                for entry in rows:
                    if "detail" in entry:
                        entry["detail"] = json.loads(entry["detail"])
                result[table] = rows
        return result

    @staticmethod
    def _stage_dict(row: sqlite3.Row) -> Dict[str, Any]:
        entry = dict(row)
        entry["ok"] = bool(entry["ok"])
        entry["diagnostics"] = json.loads(entry["diagnostics"])
        entry["output"] = json.loads(entry["output"])
        return entry

    def candidates(self, kernel: str = "") -> List[Dict[str, Any]]:
        """Every candidate (of `kernel` when given) without its IR text, oldest first."""
        rows = self.conn.execute("SELECT id, ir_sha256, defines, arch, kernel, producer, created_at FROM candidates "
                                 "WHERE ? = '' OR kernel = ? ORDER BY id", (kernel, kernel))
        return [dict(r, defines=json.loads(r["defines"])) for r in rows]

    def best(self, kernel: str, shape: Any, metric: str = "time", limit: int = 1) -> List[Dict[str, Any]]:
        """The best candidates for `kernel` at `shape`, fastest first: by measured time ("time": each
        candidate's fastest timing) or by the cost model ("predicted").  A candidate with a failed stage at
        that shape (or at no shape) or a failed correctness check is left out."""
        key = shape_text(shape)
        excluded = ("candidate_id NOT IN (SELECT candidate_id FROM stages WHERE ok = 0 AND shape IN ('', ?)) AND "
                    "candidate_id NOT IN (SELECT candidate_id FROM correctness WHERE passed = 0)")
        if metric == "time":
            query = ("SELECT candidate_id, MIN(time_ms) AS value, gpu, peer, peer_time_ms FROM timings "
                     "WHERE kernel = ? AND shape = ? AND " + excluded + " GROUP BY candidate_id ORDER BY value, candidate_id LIMIT ?")
        elif metric == "predicted":
            query = ("SELECT candidate_id, MIN(predicted_ms) AS value, bottleneck, machine FROM estimates "
                     "WHERE kernel = ? AND shape = ? AND " + excluded + " GROUP BY candidate_id ORDER BY value, candidate_id LIMIT ?")
        else:
            raise ValueError("metric must be 'time' or 'predicted', not %r" % metric)
        found = []
        for row in self.conn.execute(query, (kernel, key, key, int(limit))):
            entry = dict(row)
            entry["metric"] = metric
            entry["candidate"] = self.candidate(entry.pop("candidate_id"))
            entry["candidate"].pop("ir_text")
            found.append(entry)
        return found

    def lineage(self, candidate_id: int) -> Dict[str, Any]:
        """The candidate's ancestors and descendants, each {id, producer, defines, depth, parents}; depth
        counts the generations from the candidate (a common ancestor reached twice has its least depth)."""
        self.candidate(candidate_id)
        result: Dict[str, Any] = {"candidate": int(candidate_id)}
        for name, step in (("ancestors", ("parent_id", "child_id")), ("descendants", ("child_id", "parent_id"))):
            rows = self.conn.execute(
                "WITH RECURSIVE walk(id, depth) AS (SELECT ?, 0 UNION SELECT lineage.%s, walk.depth + 1 "
                "FROM lineage JOIN walk ON lineage.%s = walk.id WHERE walk.depth < 10000) "
                "SELECT id, MIN(depth) AS depth FROM walk WHERE depth > 0 GROUP BY id ORDER BY depth, id" % step,
                (int(candidate_id),)).fetchall()
            entries = []
            for row in rows:
                entry = self.candidate(row["id"])
                entries.append({"id": entry["id"], "depth": row["depth"], "producer": entry["producer"],
                                "defines": entry["defines"], "parents": entry["parents"]})
            result[name] = entries
        return result

    def diff(self, a: int, b: int, context: int = 3) -> str:
        """Unified diff from candidate a to candidate b: their arch and defines as a first line, then the IR."""
        def lines(candidate: Dict[str, Any]) -> List[str]:
            head = "// arch: %s  defines: %s\n" % (candidate["arch"] or "(file)", _canonical(candidate["defines"]))
            return [head] + candidate["ir_text"].splitlines(keepends=True)
        first, second = self.candidate(a), self.candidate(b)
        diff = difflib.unified_diff(lines(first), lines(second), "candidate %d (%s)" % (a, first["ir_sha256"][:12]),
                                    "candidate %d (%s)" % (b, second["ir_sha256"][:12]), n=context)
        return "".join(line if line.endswith("\n") else line + "\n" for line in diff)

    def failure_histogram(self, stage: str = "") -> List[Dict[str, Any]]:
        """Each failure signature with the number of candidates that failed with it (most frequent first) and
        those candidates' ids."""
        rows = self.conn.execute(
            "SELECT failure_signature, COUNT(DISTINCT candidate_id) AS candidates, COUNT(*) AS failures, "
            "GROUP_CONCAT(DISTINCT candidate_id) AS ids FROM stages WHERE ok = 0 AND failure_signature IS NOT NULL "
            "AND (? = '' OR stage = ?) GROUP BY failure_signature ORDER BY candidates DESC, failure_signature",
            (stage, stage))
        return [{"signature": r["failure_signature"], "candidates": r["candidates"], "failures": r["failures"],
                 "candidate_ids": sorted(int(i) for i in str(r["ids"]).split(","))} for r in rows]

    def export_jsonl(self, handle: IO[str], ids: Optional[Iterable[int]] = None) -> int:
        """Writes one JSON object per candidate (everything candidate(id, full=True) returns); the count."""
        chosen = list(ids) if ids is not None else [r[0] for r in self.conn.execute("SELECT id FROM candidates ORDER BY id")]
        for candidate_id in chosen:
            handle.write(json.dumps(self.candidate(candidate_id, full=True), sort_keys=True) + "\n")
        return len(chosen)
