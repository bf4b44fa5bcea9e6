"""Merging run records: the records of the shards of a Slurm job array (`--shard i/n`), or of several
machines, into one (docs/harness.md, section "Scale-out").

merge_records(target, sources) copies every source record into the target in order, source by source:
  candidates  identified as in one record, by (IR hash, -D values, arch): a candidate the target already has
              keeps its id (and its first producer), a new one gets the next id; every id of a source is
              mapped to the target's;
  lineage     each edge, with both ends mapped (an edge the target has is kept once);
  stages      every row, with its estimates and resources rows re-pointed to the new stage id;
  correctness, timings
              every row, candidate id mapped.
Rows are appended, not deduplicated (two shards that measured the same candidate contribute two timings,
as two runs would); merging a record into itself twice doubles its outcome rows, so merge each shard once.
Returns {source path: {candidates, new_candidates, stages, timings, correctness}}."""

from __future__ import annotations

import json
from typing import Any, Dict, Sequence

from .record import RunRecord


def _rows(record: RunRecord, query: str, *args: Any) -> list:
    return [dict(row) for row in record.conn.execute(query, args)]


def merge_records(target: RunRecord, sources: Sequence[str]) -> Dict[str, Dict[str, int]]:
    report: Dict[str, Dict[str, int]] = {}
    for path in sources:
        with RunRecord(path) as source:
            counts = {"candidates": 0, "new_candidates": 0, "stages": 0, "timings": 0, "correctness": 0}
            before = target.conn.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]
            ids: Dict[int, int] = {}
            for row in _rows(source, "SELECT * FROM candidates ORDER BY id"):
                ids[row["id"]] = target.add_candidate(row["ir_text"], json.loads(row["defines"]), row["arch"],
                                                      row["kernel"], row["producer"])
                counts["candidates"] += 1
            counts["new_candidates"] = target.conn.execute("SELECT COUNT(*) FROM candidates").fetchone()[0] - before
            conn = target.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                for row in _rows(source, "SELECT * FROM lineage"):
                    if ids[row["child_id"]] != ids[row["parent_id"]]:
                        conn.execute("INSERT OR IGNORE INTO lineage (child_id, parent_id) VALUES (?, ?)",
                                     (ids[row["child_id"]], ids[row["parent_id"]]))
                for row in _rows(source, "SELECT * FROM stages ORDER BY id"):
                    old = row.pop("id")
                    row["candidate_id"] = ids[row["candidate_id"]]
                    stage_id = _insert(conn, "stages", row)
                    counts["stages"] += 1
                    for table in ("estimates", "resources"):
                        for child in _rows(source, "SELECT * FROM %s WHERE stage_id = ?" % table, old):
                            child.update(stage_id=stage_id, candidate_id=ids[child["candidate_id"]])
                            _insert(conn, table, child)
                for table in ("correctness", "timings"):
                    for row in _rows(source, "SELECT * FROM %s ORDER BY id" % table):
                        row.pop("id")
                        row["candidate_id"] = ids[row["candidate_id"]]
                        _insert(conn, table, row)
                        counts[table] += 1
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            report[path] = counts
    return report


def _insert(conn: Any, table: str, row: Dict[str, Any]) -> int:
    names = sorted(row)
    cursor = conn.execute("INSERT INTO %s (%s) VALUES (%s)" % (table, ", ".join(names), ", ".join("?" * len(names))),
                          [row[name] for name in names])
    return int(cursor.lastrowid or 0)
