"""A short scripted evolution that an agent could run through the harness's tools; test_harness_jsonl.py
drives it over JSON lines, test_harness_mcp.py over MCP.  `call(tool, arguments)` returns (ok, result or
error message).

The script: verify samples/vector_add.cake; evaluate it (the seed) and a child that changes the
compile-time parameter THREADS; run the child on the CPU interpreter against a Python reference and record
the correctness; record timings; ask for the best candidate, the lineage and the diff; feed two kernels
with the same planted error (an undeclared name) and read the failure histogram, where they form one
cluster; explain the error's code and look up the reference for a construct."""

import os
from typing import Any, Callable, Dict, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(REPO, "samples", "vector_add.cake")

Call = Callable[[str, Dict[str, Any]], Tuple[bool, Any]]


def run_evolution(call: Call) -> None:
    ok, verdict = call("verify", {"file": SAMPLE})
    assert ok and verdict["ok"] and verdict["diagnostics"] == [], verdict
    assert "verified" in verdict["output"]["summary"]

    shape = {"N": 100000}
    ok, seed = call("evaluate", {"file": SAMPLE, "shape": shape, "producer": "seed"})
    assert ok and seed["ok"] and seed["kernel"] == "vector_add", seed
    assert [s["stage"] for s in seed["stages"]][:2] == ["verify", "estimate"]
    assert "cakec" in seed["compiler_version"]
    ok, child = call("evaluate", {"file": SAMPLE, "defines": {"THREADS": 128}, "shape": "N=100000",
                                  "parents": [seed["candidate"]], "producer": "mutate-define"})
    assert ok and child["ok"] and child["candidate"] != seed["candidate"], child
    estimate = child["stages"][1]["output"]["estimate"]["kernels"][0]
    assert estimate["threads"] == 128 and estimate["predicted_ms"] > 0
    if "compile" not in child["skipped"]:
        resources = child["stages"][2]["output"]["resources"]
        assert resources[0]["kernel"] == "vector_add" and resources[0]["registers"] > 0

    n = 37  # a ragged length: four full vectors of 8 and a scalar tail of 5
    a = [float(i) / 8 for i in range(n)]
    b = [1.0 - float(i % 5) for i in range(n)]
    ok, ran = call("run", {"file": SAMPLE, "defines": {"THREADS": 128}, "candidate": child["candidate"],
                           "inputs": {"A": {"values": a, "shape": [n]}, "B": {"values": b, "shape": [n]}},
                           "expected": {"C": {"values": [x + y for x, y in zip(a, b)], "shape": [n]}},
                           "atol": 0.0, "rtol": 0.0})
    assert ok and ran["ok"] and ran["correctness"]["passed"], ran
    assert ran["correctness"]["outputs"]["C"]["mismatches"] == 0
    ok, shown = call("candidate", {"candidate": child["candidate"]})
    assert ok and shown["correctness"][0]["passed"] == 1 and shown["stages"][-1]["stage"] == "run"
    ok, wrong = call("run", {"file": SAMPLE, "inputs": {"A": {"values": a, "shape": [n]}},  # B zero-filled
                             "expected": {"C": {"values": [x + 1 for x in a], "shape": [n]}}, "atol": 0.5})
    assert ok and not wrong["correctness"]["passed"] and wrong["correctness"]["outputs"]["C"]["mismatches"] == n

    for candidate, ms in ((seed["candidate"], 0.0120), (child["candidate"], 0.0110)):
        ok, _ = call("add_result", {"candidate": candidate, "kind": "timing", "time_ms": ms, "kernel": "vector_add",
                                    "shape": shape, "gpu": "NVIDIA H200", "sm_clock_mhz": 1980, "peer": "device copy",
                                    "peer_time_ms": 0.0125, "seed": 0})
        assert ok
    ok, best = call("best", {"kernel": "vector_add", "shape": shape, "limit": 2})
    assert ok and [b["candidate"]["id"] for b in best["best"]] == [child["candidate"], seed["candidate"]], best
    ok, predicted = call("best", {"kernel": "vector_add", "shape": shape, "metric": "predicted", "limit": 5})
    assert ok and len(predicted["best"]) == 2 and predicted["best"][0]["bottleneck"]

    ok, lineage = call("lineage", {"candidate": child["candidate"]})
    assert ok and [a["id"] for a in lineage["ancestors"]] == [seed["candidate"]]
    ok, diff = call("diff", {"a": seed["candidate"], "b": child["candidate"]})
    assert ok and '+// arch: (file)  defines: {"THREADS":128}' in diff["diff"]

    text = open(SAMPLE).read()
    signatures = []
    for wrong_name in ("Bq", "Bz"):
        planted = text.replace("let b = B[i +: 8];", "let b = %s[i +: 8];" % wrong_name)
        assert planted != text
        ok, failed = call("evaluate", {"ir": planted, "parents": [child["candidate"]], "producer": "typo"})
        assert ok and not failed["ok"] and failed["failed_stage"] == "verify", failed
        signatures.append(failed["failure_signature"])
    assert signatures == ["verify:E0301:let"] * 2
    ok, failures = call("failures", {})
    assert ok and failures["failures"][0]["signature"] == "verify:E0301:let"
    assert failures["failures"][0]["candidates"] == 2

    ok, explained = call("explain", {"code": "e0301"})
    assert ok and "UndefinedName" in explained["text"]
    ok, section = call("reference", {"construct": "tma.load"})
    assert ok and section["section"].startswith("#### `tma.load`")

    ok, message = call("lineage", {"candidate": 999})
    assert not ok and "no candidate 999" in message
    ok, message = call("verify", {"file": SAMPLE, "optimise": True})
    assert not ok and "unknown argument" in message
