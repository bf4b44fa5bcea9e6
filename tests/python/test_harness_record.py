"""The harness's run record without the compiler (cakeir.harness: schema, record, signature, record_cli):
schema creation, migration from version 1, refusal of newer databases, concurrent writers, the query API
(lineage, best, diff, failure histogram, export) and the command line."""

import io
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from cakeir.harness import CURRENT_VERSION, RunRecord, ir_sha256, migrate, open_database
from cakeir.harness import record_cli
from cakeir.harness.schema import schema_version
from cakeir.harness.signature import construct_at, failure_signature

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IR = "target sm_80;\nkernel k<T = 1>(A: f32[N]) grid(1) threads(32) {\n  A[0] = 1.0;\n}\n"


def tables(conn):
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_new_database_has_the_current_schema_in_wal_mode(tmp_path):
    conn = open_database(str(tmp_path / "runs.db"))
    assert schema_version(conn) == CURRENT_VERSION == 2
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"schema_version", "candidates", "lineage", "stages", "estimates", "resources", "correctness",
            "timings"} <= tables(conn)
    assert migrate(conn) == CURRENT_VERSION  # opening again changes nothing
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1


def test_a_version_1_record_is_migrated_when_opened(tmp_path):
    path = str(tmp_path / "old.db")
    conn = open_database(path, target=1)
    assert schema_version(conn) == 1 and "timings" not in tables(conn)
    conn.execute("INSERT INTO candidates (ir_sha256, ir_text, created_at) VALUES (?, ?, 'then')", (ir_sha256(IR), IR))
    conn.close()
    with RunRecord(path) as record:
        assert schema_version(record.conn) == CURRENT_VERSION
        assert record.candidate(1)["ir_text"] == IR
        record.add_timing(1, 0.5, kernel="k", shape="N=32", gpu="test")
        assert record.best("k", {"N": 32})[0]["value"] == 0.5


def test_a_newer_record_is_refused(tmp_path):
    path = str(tmp_path / "new.db")
    open_database(path).execute("UPDATE schema_version SET version = 99")
    with pytest.raises(ValueError, match="schema version 99"):
        open_database(path)


def test_two_processes_write_one_record(tmp_path):
    path = str(tmp_path / "shared.db")
    script = ("import sys; from cakeir.harness import RunRecord\n"
              "r = RunRecord(sys.argv[1])\n"
              "for i in range(25): r.add_candidate('// %s %d' % (sys.argv[2], i), producer=sys.argv[2])\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "runtime", "python"))
    writers = [subprocess.Popen([sys.executable, "-c", script, path, name], env=env) for name in ("a", "b")]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    with RunRecord(path) as record:
        assert len(record.candidates()) == 50


def test_candidates_lineage_best_diff_failures_export(tmp_path):
    with RunRecord(str(tmp_path / "runs.db")) as record:
        root = record.add_candidate(IR, kernel="k", producer="seed")
        assert record.add_candidate(IR, kernel="k") == root  # same text, defines and arch: same candidate
        left = record.add_candidate(IR, {"T": 2}, kernel="k", producer="mutate", parents=[root])
        right = record.add_candidate(IR.replace("1.0", "2.0"), kernel="k", producer="edit", parents=[root])
        cross = record.add_candidate(IR, {"T": 3}, kernel="k", producer="crossover", parents=[left, right])
        with pytest.raises(KeyError):
            record.add_candidate(IR, {"T": 4}, parents=[999])

        lineage = record.lineage(cross)
        assert [(a["id"], a["depth"]) for a in lineage["ancestors"]] == [(left, 1), (right, 1), (root, 2)]
        assert [d["id"] for d in record.lineage(root)["descendants"]] == [left, right, cross]
        assert record.candidate(cross)["parents"] == [left, right]

        diff = record.diff(root, right)
        assert "-  A[0] = 1.0;\n+  A[0] = 2.0;\n" in diff and diff.startswith("--- candidate %d" % root)
        assert '+// arch: (file)  defines: {"T":2}' in record.diff(root, left)

        for candidate, ms in ((root, 3.0), (left, 1.0), (right, 2.0), (cross, 0.5)):
            record.add_timing(candidate, ms, kernel="k", shape={"N": 32}, gpu="H200", sm_clock_mhz=1980,
                              peer="torch", peer_time_ms=1.5, seed=7)
        record.add_correctness(cross, False, kernel="k", shape="N=32", max_abs_error=1.0, mismatches=3,
                               method="interpreter")
        record.add_stage(right, "verify", False, 1, [{"severity": "error", "code": "E0301", "file": "k.cake",
                                                      "line": 3, "message": "m"}],
                         failure_signature="verify:E0301:store")
        best = record.best("k", "N=32", metric="time", limit=5)
        assert [(b["candidate"]["id"], b["value"]) for b in best] == [(left, 1.0), (root, 3.0)]

        record.add_stage(left, "estimate", True, 0, output={"estimate": {"kernels": [
            {"kernel": "k", "shape": {"N": 32}, "machine": "h200", "predicted_ms": 0.25, "bottleneck": "hbm"}]}},
            shape="N=32")
        predicted = record.best("k", "N=32", metric="predicted")
        assert predicted[0]["candidate"]["id"] == left and predicted[0]["bottleneck"] == "hbm"

        record.add_stage(root, "compile", False, 1, failure_signature="compile:E0705:-")
        record.add_stage(cross, "verify", False, 1, failure_signature="verify:E0301:store")
        assert record.failure_histogram() == [
            {"signature": "verify:E0301:store", "candidates": 2, "failures": 2, "candidate_ids": [right, cross]},
            {"signature": "compile:E0705:-", "candidates": 1, "failures": 1, "candidate_ids": [root]}]
        assert [f["signature"] for f in record.failure_histogram("compile")] == ["compile:E0705:-"]

        out = io.StringIO()
        assert record.export_jsonl(out) == 4
        lines = [json.loads(line) for line in out.getvalue().splitlines()]
        assert lines[3]["parents"] == [left, right] and lines[3]["correctness"][0]["passed"] == 0
        assert lines[0]["timings"][0]["peer"] == "torch" and lines[0]["timings"][0]["seed"] == 7


def test_failure_signatures_name_stage_code_and_construct():
    text = "kernel k() {\n  let x = y;\n  C[i +: 8] = v;\n  } else { tma.load a[s] <- A[0, 0] signal f[s]\n  x += 1;\n"
    assert [construct_at(text, n) for n in (1, 2, 3, 4, 5, 9)] == ["kernel", "let", "store", "tma.load", "store", "-"]
    error = {"severity": "error", "code": "E0301", "file": "k.cake", "line": 2, "column": 11, "message": "m"}
    assert failure_signature("verify", [{"severity": "warning", "code": "E0375"}, error], text) == "verify:E0301:let"
    assert failure_signature("verify", [dict(error, file=None, line=0)], text) == "verify:E0301:-"
    assert failure_signature("compile", [], text, "timeout") == "compile:timeout:-"


def test_record_command_line(tmp_path, capsys):
    db, source = str(tmp_path / "cli.db"), tmp_path / "k.cake"
    source.write_text(IR)
    assert record_cli.main(["--db", db, "init"]) == 0
    assert "schema version 2" in capsys.readouterr().out
    assert record_cli.main(["--db", db, "add", str(source), "--producer", "human"]) == 0
    assert json.loads(capsys.readouterr().out) == {"candidate": 1}
    assert record_cli.main(["--db", db, "add", str(source), "-D", "T=0x10", "--parent", "1"]) == 0
    capsys.readouterr()
    assert record_cli.main(["--db", db, "lineage", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["ancestors"][0]["id"] == 1
    assert record_cli.main(["--db", db, "diff", "1", "2"]) == 0
    assert '+// arch: (file)  defines: {"T":16}' in capsys.readouterr().out
    assert record_cli.main(["--db", db, "failures"]) == 0
    assert capsys.readouterr().out == ""
    out = tmp_path / "all.jsonl"
    assert record_cli.main(["--db", db, "export", "-o", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 2
    assert record_cli.main(["--db", db, "lineage", "7"]) == 1
    assert "no candidate 7" in capsys.readouterr().err
