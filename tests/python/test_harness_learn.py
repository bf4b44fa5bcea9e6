"""Learning from a run record (cakeir.harness.clusters, proposals and the `clusters` / `propose` commands) on
a synthetic record: failure clusters with frequencies, shared -D values and example lineages; a block of code
shared by three successful candidates (and by a failed one, which does not count) proposed as an `fn`
primitive; a chained tactic that improved two starting candidates (and did not improve a third) and two
consecutive improving steps proposed as tactics, each with its evidence; single occurrences proposed as
nothing."""

import json

from cakeir.harness import RunRecord
from cakeir.harness.__main__ import main as harness_main
from cakeir.harness.clusters import failure_clusters
from cakeir.harness.proposals import free_names, propose_primitives, propose_tactics

SHARED = """  var best: f32 = inf;
  for c in 0..K {
    let dist = CN[b, c] - 2.0 * dot(X, c);
    if dist < best { best = dist; }
  }
  MinD[b, i] = best;
"""


def _kernel(name, before, after=""):
    return "target sm_90a;\n// %s\nkernel %s<TPB = 128>(X: f32[N]) {\n  let b = 0;\n%s%s%s}\n" % (
        name, name, before, SHARED, after)


def _diag(code, line, message):
    return [{"code": code, "severity": "error", "file": "k.cake", "line": line, "column": 1, "message": message}]


def _record(path):
    record = RunRecord(path)
    seed = record.add_candidate(_kernel("seed", "  let i = 1;\n"), {}, "", "seed", "seed")
    record.add_timing(seed, 10.0, "seed", "N=1")
    ok = []
    for index, extra in enumerate(("  let i = 2;\n", "  let i = 3;\n  let j = i;\n")):
        cand = record.add_candidate(_kernel("k%d" % index, extra, "  L[b, i] = 0;\n"), {"TPB": 256}, "", "k%d" % index,
                                    "tactic:a+b", [seed])
        record.add_timing(cand, 5.0 + index, "k%d" % index, "N=1")
        ok.append(cand)
    failed_copy = record.add_candidate(_kernel("bad", "  let i = 9;\n"), {"S": 5, "TPB": 64}, "", "bad", "tactic:c", [ok[0]])
    record.add_stage(failed_copy, "verify", False, 1, _diag("E0412", 5, "out of bounds"), {}, None, "verify:E0412:for")
    other = record.add_candidate(_kernel("bad2", "  let i = 8;\n"), {"S": 5, "TPB": 128}, "", "bad2", "tactic:c",
                                 [failed_copy])
    record.add_stage(other, "verify", False, 1, _diag("E0412", 5, "out of bounds again"), {}, None, "verify:E0412:for")
    third = record.add_candidate("kernel z() {}\n", {}, "", "z", "agent")
    record.add_stage(third, "estimate", False, 1, _diag("E0801", 1, "no shape"), {}, None, "estimate:E0801:kernel")
    # a+b from a third start that did not improve; c+d: improved two starts, as two consecutive steps (c, d)
    worse = record.add_candidate(_kernel("w", "  let i = 4;\n"), {}, "", "w", "tactic:a+b", [ok[1]])
    record.add_timing(worse, 9.0, "w", "N=1")
    for start, times in ((ok[0], (4.0, 3.0)), (ok[1], (5.0, 2.5))):
        mid = record.add_candidate(_kernel("m%d" % start, "  let q = %d;\n" % start), {}, "", "m", "tactic:c", [start])
        record.add_timing(mid, times[0], "m", "N=1")
        end = record.add_candidate(_kernel("e%d" % start, "  let r = %d;\n" % start), {}, "", "e", "tactic:d", [mid])
        record.add_timing(end, times[1], "e", "N=1")
    return record, seed, ok, failed_copy, other, third


def test_failure_clusters(tmp_path):
    record, seed, ok, failed_copy, other, third = _record(str(tmp_path / "runs.db"))
    with record:
        report = failure_clusters(record)
    assert report["failed_candidates"] == 3 and report["candidates"] == 11
    first, second = report["clusters"]
    assert first["signature"] == "verify:E0412:for" and first["candidates"] == 2 and first["frequency"] == 0.6667
    assert first["candidate_ids"] == [failed_copy, other] and first["producers"] == {"tactic:c": 2}
    assert first["shared_defines"] == {"S": 5}                    # TPB differs
    assert first["example_error"] == {"code": "E0412", "message": "out of bounds", "line": 5}
    assert [step["id"] for step in first["example_lineages"][1]] == [seed, ok[0], failed_copy, other]
    assert second["signature"] == "estimate:E0801:kernel" and second["shared_defines"] == {}


def test_primitive_and_tactic_proposals(tmp_path):
    record, seed, ok, failed_copy, other, third = _record(str(tmp_path / "runs.db"))
    with record:
        primitives = propose_primitives(record, min_lines=4, min_sources=3)
        tactics = propose_tactics(record, min_lineages=2)
        assert propose_tactics(record, min_lineages=3) == []
    top = primitives[0]
    assert top["lines"][:2] == ["var best: f32 = inf;", "for c in 0..K {"] and top["lines"][-1] == "MinD[b, i] = best;"
    assert failed_copy not in top["candidates"] and set(ok) | {seed} <= set(top["candidates"])
    assert {"K", "CN", "X", "MinD", "b", "i"} <= set(top["parameters"])
    assert "dist" not in top["parameters"] and "best" not in top["parameters"]
    names = {p["name"]: p for p in tactics}
    assert set(names) == {"c+d"}                # a+b improved only the seed's lineage (once), then worsened
    assert [(e["start"], e["basis"]) for e in names["c+d"]["evidence"]] == [(ok[0], "measured"), (ok[1], "measured")]
    assert names["c+d"]["geomean_speedup"] == round((5.0 / 3.0 * 6.0 / 2.5) ** 0.5, 4)
    assert free_names(["let x = y + 1;", "z[x] = x;"]) == ["y", "z"]


def test_commands(tmp_path, capsys):
    record, *_ = _record(str(tmp_path / "runs.db"))
    record.close()
    assert harness_main(["clusters", "--record", str(tmp_path / "runs.db")]) == 0
    text = capsys.readouterr().out
    assert "verify:E0412:for" in text and "every one has S=5" in text and "lineage 1 (seed) -> 2" in text
    out = tmp_path / "proposals.json"
    assert harness_main(["propose", "--record", str(tmp_path / "runs.db"), "-o", str(out), "--min-sources", "3"]) == 0
    document = json.loads(out.read_text())
    assert document["format"] == "cake-proposals" and document["primitives"] and document["tactics"]
    assert "tactic c+d: improved 2 lineages" in capsys.readouterr().out
    assert harness_main(["propose", "--record", str(tmp_path / "missing.db")]) == 2
