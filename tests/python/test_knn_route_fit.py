"""bench/knn_route_fit.py on the CPU: on synthetic path timings whose best route is known, the fit finds the work
bound, the column-group box and the shallow-ring corpus ranges, keeps the router's k = 1 assignment choice, and
reads the bench's JSON-lines records (gzip or not)."""

import gzip
import importlib.util
import json
import math
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def fit():
    spec = importlib.util.spec_from_file_location("knn_route_fit", os.path.join(REPO, "bench", "knn_route_fit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(k, b, q, m, d, paths, variant="s"):
    """One bench record: the paths' times in ms, flashlib and the routed call at 1 ms."""
    timing = {"path:" + name: {"ms": ms} for name, ms in paths.items()}
    timing.update({"flashlib": {"ms": 1.0}, "cake": {"ms": 1.0}})
    return {"status": "ok", "shape": "knn Q=%d M=%d D=%d k=%d B=%d" % (q, m, d, k, b), "variant": variant,
            "dims": {"B": b, "N": q, "K": m, "D": d, "k": k}, "timing": timing}


def synthetic():
    """k = 10 shapes: the knn library wins from 2^30 of work, the shallow ring for M <= 8 and 1024..16384, the
    column groups for M <= 512 with Q <= 16, the plain layout elsewhere; one k = 1 shape the router sent to the
    assignment (its other paths are faster, but the fit must not move it)."""
    rows = []
    for m in (2, 8, 40, 300, 2000, 9000, 60000):
        for q in (4, 64, 4096):
            work = math.log2(q * m * 64)
            best = ("big" if work >= 30 else "small_ql0_t" if m <= 8 or 1024 <= m <= 16384
                    else "small_ql0_wc" if m <= 512 and q <= 16 else "small_ql0")
            paths = {p: (1.0 if p == best else 2.0) for p in ("big", "small_ql0", "small_ql0_t", "small_ql0_wc",
                                                               "small_ql1")}
            rows.append(record(10, 1, q, m, 64, paths))
    rows.append(record(1, 1, 50000, 4096, 64, {"argmin": 3.0, "small_ql0": 1.0, "small_ql0_t": 1.0, "big": 1.0},
                       variant="assign:sm90_d64"))
    return rows


def test_fit_finds_the_known_routes(fit, tmp_path):
    path = tmp_path / "library_knn.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for r in synthetic():
            f.write(json.dumps(r) + "\n")
    rows = fit.load(str(path))
    assert len(rows) == 22
    rules = fit.fit(rows)
    bound, layout, m_max, q_max, lo, hi, top = rules[10]
    assert layout == "small_ql0"
    assert 28.5 < bound <= 30                       # between the training shapes around 2^30
    assert 8 <= lo < 40 and 300 < hi <= 1024 and 9000 <= top < 60000
    assert 300 <= m_max < 2000 and 4 <= q_max < 64
    members = [r for r in rows if r["k"] == 10]
    assert all(r["paths"][fit.fitted_route(r, rules[10])] == 1.0 for r in members)
    # the router's assignment choice for k = 1 stays, whatever the other paths measured
    k1 = [r for r in rows if r["k"] == 1]
    assert k1[0]["assign"] and fit.fitted_route(k1[0], rules[1]) == "argmin"


def test_plain_jsonl_and_skipped_records(fit, tmp_path):
    path = tmp_path / "library_knn.jsonl"
    good = record(10, 1, 4, 2, 64, {"small_ql0": 1.0})
    with open(path, "w", encoding="utf-8") as f:
        for r in (good, {"status": "error", "shape": "x"}, dict(good, timing={"cake": {"ms": 1.0}})):
            f.write(json.dumps(r) + "\n")
    rows = fit.load(str(path))
    assert len(rows) == 1 and rows[0]["paths"] == {"small_ql0": 1.0} and not rows[0]["assign"]
