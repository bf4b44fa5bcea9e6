"""bench/library_knn_bench.py on the CPU: the seeded shape generator and its train / held-out split (issue 17's
400+ KNN and k-means-assignment shapes), the report's statistics, the generalization tool's inputs it writes,
and that a table fitted to the KNN training shapes puts its thresholds on k exactly at the variants' KK."""

import importlib.util
import json
import math
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(REPO, "bench", "library_knn_bench.py")


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, os.path.join(REPO, "bench"))
    spec = importlib.util.spec_from_file_location("library_knn_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def identity(s):
    return (s.op, s.key, s.batched, s.set, s.tail)


def test_deterministic(bench):
    a, b = bench.shapes(), bench.shapes()
    assert [identity(s) for s in a] == [identity(s) for s in b]
    other = bench.shapes(seed=bench.SEED + 1)
    assert [identity(s) for s in a] != [identity(s) for s in other]


def test_counts_ranges_and_tails(bench):
    every = bench.shapes()
    for op in ("knn", "assign"):
        mine = [s for s in every if s.op == op]
        held = [s for s in mine if s.set in ("held_out", "tail")]
        train = [s for s in mine if s.set == "train"]
        assert len(held) >= 400, (op, len(held))
        assert len(train) >= 100, (op, len(train))
        assert {s.d for s in held} == set(bench.DIMS)
        assert any(s.batched for s in held) and any(not s.batched for s in held)
        for t in bench.TAILS:                       # every tail, as rows and as columns, in the held-out set
            assert any(s.q == t for s in held), (op, t)
            assert any(s.m == t for s in held), (op, t)
        cap = bench.KNN_WORK_CAP if op == "knn" else bench.ASSIGN_WORK_CAP
        assert all(1 <= s.work <= cap for s in mine)
        assert all(s.b == 1 for s in mine if not s.batched) and all(s.b >= 2 for s in mine if s.batched)
        # sizes spread over the log range: shapes in every decade of the rows
        decades = {int(math.log10(s.q)) for s in held}
        assert decades >= {0, 1, 2, 3, 4}, decades
    knn = [s for s in every if s.op == "knn"]
    assert {s.k for s in knn if s.set != "train"} == set(bench.KS)
    assert all(s.k <= s.m for s in knn)              # flashlib refuses M < k
    assert {s.k for s in knn if s.set == "train"} >= set(bench.KS_BOUNDARY)


def test_split_disjoint_and_stable(bench):
    every = bench.shapes()
    keys = [(s.op, s.key, s.batched) for s in every]
    assert len(keys) == len(set(keys))               # no shape twice, so none is both trained on and held out
    train = {(s.op, s.key, s.batched) for s in every if s.set == "train"}
    held = {(s.op, s.key, s.batched) for s in every if s.set in ("held_out", "tail")}
    assert train and held and not (train & held)
    assert all(s.set == "tail" for s in every if s.tail)
    # the split is a function of the shape alone (a hash of op, dims, batched), about a quarter trains
    drawn = [s for s in every if not s.tail and not (s.op == "knn" and s.k in bench.KS_BOUNDARY)]
    assert all((s.set == "train") == bench._in_train(s) for s in drawn)
    share = sum(1 for s in drawn if s.set == "train") / len(drawn)
    assert 0.18 < share < 0.32, share


def test_run_order_alternates_and_limits(bench):
    args = bench.parse_args(["--dry-run", "--sets", "held_out"])
    order = bench.selected_shapes(args)
    assert {s.set for s in order} == {"held_out", "tail"}
    assert [s.op for s in order[:6]] == ["knn", "assign"] * 3
    args = bench.parse_args(["--dry-run", "--sets", "train", "--libs", "knn", "--limit", "5"])
    assert [s.set for s in bench.selected_shapes(args)] == ["train"] * 5


def test_summary_statistics(bench):
    shape = bench.Shape("knn", 1, 100, 1000, 64, 10)
    shape.set = "held_out"
    records = [{"dims": shape.to_json(), "bucket": bench.bucket(shape), "status": "ok", "x_flashlib": x,
                "x_flashlib_wall": 1.0, "x_torch": 4.0} for x in (1.0, 2.0, 4.0, 0.5)]
    s = bench.summarize(records, "knn")
    assert s["shapes"] == 4
    assert s["held_out"]["geomean_x_flashlib"] == pytest.approx(math.sqrt(2.0))
    assert s["held_out"]["min_x_flashlib"] == 0.5 and s["held_out"]["below_0.9"] == 1
    assert s["train"]["with_ratio"] == 0
    assert sum(n for _, _, n in s["held_out"]["histogram_x_flashlib"]) == 4
    assert s["held_out"]["percentiles_x_flashlib"][50] == pytest.approx(1.5)


def test_generalize_inputs_and_candidates(bench, tmp_path):
    every = bench.shapes()
    times = {"knn": {"d64": {"B=1,N=1,K=1,D=64,k=1": 0.1}}}
    bench.write_generalize_inputs(str(tmp_path), every, times)
    train = json.loads((tmp_path / "train_knn_bf16.json").read_text())
    assert len(train) == sum(1 for s in every if s.op == "knn" and s.set == "train")
    assert set(train[0]) == {"B", "N", "K", "D", "k"}
    sets = json.loads((tmp_path / "validate_kmeans_assign_bf16.json").read_text())["sets"]
    assert set(sets) == {"held_out", "tail"} and set(sets["tail"][0]) == {"B", "N", "K", "D"}
    assert json.loads((tmp_path / "times_knn_bf16.json").read_text())["times"]["d64"]
    out = tmp_path / "cand.json"
    assert bench.write_candidates(os.path.join(REPO, "kernels", "kmeans", "library_knn_bf16.json"), str(out)) == 0
    cand = json.loads(out.read_text())
    assert "dispatch" not in cand and cand["fallback"] == "d256_k64"
    assert all(os.path.isabs(v["source"]) and os.path.isfile(v["source"]) for v in cand["variants"])
    # the assignment's sm_80 variants cannot be timed on the H200: --arch sm_90a keeps the sm_90a ones only
    assign = os.path.join(REPO, "kernels", "kmeans", "library_assign_bf16.json")
    assert bench.write_candidates(assign, str(out), "sm_90a") == 0
    cand = json.loads(out.read_text())
    assert cand["targets"] == ["sm_90a"] and cand["fallback"] == "sm90_d256"
    assert cand["variants"] and all(v["source"].endswith("assign_sm90.cake") or v.get("arch") == "sm_90a"
                                    for v in cand["variants"])     # assign_sm80.cake built for sm_90a: small_*
    assert {"small_d64", "sm90_d64"} <= {v["name"] for v in cand["variants"]}
    assert not any(v["name"].startswith("sm80_") for v in cand["variants"])


def test_tree_thresholds_on_k_are_exact(bench):
    """With the boundary k values in the training set, the regret tree over the KNN training shapes (a variant
    of another D or with KK < k infeasible, larger KK slower) separates k exactly at 10, 16 and 32 for every D:
    no leaf's path admits a k above its variant's KK."""
    from cakeir import generalize as gen
    names = list(bench.SHAPE_VARS["knn"])
    train = [s for s in bench.shapes() if s.op == "knn" and s.set == "train"]
    variants = {"d%d_k%d" % (d, kk): (d, kk) for d in bench.DIMS for kk in (10, 16, 32, 64)}
    times = {v: {} for v in variants}
    for s in train:
        for v, (d, kk) in variants.items():
            times[v][s.key] = gen.INFEASIBLE if d != s.d or kk < s.k else 1.0 + kk / 64.0
    leaves = gen.fit_tree([s.values for s in train], names, times, list(variants), 16)
    assert len(leaves) == 12
    for leaf in leaves:
        d, kk = variants[leaf.variant]
        assert all(s["D"] == d and s["k"] <= kk for s in leaf.shapes)
        bounds = [c.value for c in leaf.path if c.var == "k" and c.op == "<="]
        if kk < 64:
            assert bounds and min(bounds) <= kk, (leaf.variant, [c.text() for c in leaf.path])
        lower = [c.value for c in leaf.path if c.var == "k" and c.op == ">"]
        assert max(lower, default=0) < kk


def exact_knn(torch, x, c, k):
    """(dist, idx) of the k nearest rows, every column's score by the same float64 operation (identical rows
    score bit-equal, so exact ties go to the smaller index by the stable sort)."""
    xb, cb = (x, c) if x.dim() == 3 else (x.unsqueeze(0), c.unsqueeze(0))
    xf, cf = xb.double(), cb.double()
    scores = torch.stack([((xf - cf[:, j:j + 1, :]) ** 2).sum(-1) for j in range(cf.shape[1])], -1)
    order = torch.sort(scores, dim=-1, stable=True)
    dist, idx = order.values[..., :k].float(), order.indices[..., :k].to(torch.int32)
    return (dist, idx) if x.dim() == 3 else (dist[0], idx[0])


@pytest.mark.parametrize("dims", [("knn", 1, 300, 400, 64, 10, False), ("knn", 3, 50, 7, 128, 1, True),
                                  ("knn", 2, 129, 300, 256, 64, True), ("assign", 1, 500, 1, 64, 0, False),
                                  ("assign", 2, 700, 33, 128, 0, True)])
def test_checks_accept_the_reference_and_catch_errors(bench, dims):
    """The per-shape checks on the CPU (torch needed): the float32 reference passes; a wrong index / label, a
    poisoned element left, or a tie broken to the larger duplicate fails."""
    torch = pytest.importorskip("torch", reason="torch is not importable: the checks need it")
    from cakeir import kmeans as ref
    bench.DEVICE = "cpu"
    import fragment_samples_common as common
    common.DEVICE = "cpu"
    try:
        shape = bench.Shape(*dims)
        x, c, dups = bench.make_inputs(torch, shape, 1234)
        assert x.dtype == torch.bfloat16 and x.dim() == (3 if shape.batched else 2)
        if shape.op == "knn":
            dist, idx = exact_knn(torch, x, c, shape.k)
            assert bench.check_knn(torch, shape, x, c, dups, (dist, idx))["ok"]
            assert bench.check_knn(torch, shape, x, c, dups, (None, idx))["ok"]       # indices only (flashlib)
            bad = idx.clone()
            bad[..., 0, -1] = (bad[..., 0, -1] + shape.m // 2 + 1) % shape.m if shape.m > shape.k else -5
            rows_all = bench.check_knn(torch, shape, x, c, dups, (dist, bad), rows_per_batch=10 ** 6)
            assert not rows_all["ok"]
            poisoned = idx.clone()
            poisoned.view(-1)[-1] = common.INT_SENTINEL
            assert not bench.check_knn(torch, shape, x, c, dups, (None, poisoned))["ok"]
        else:
            cn = (c.float() * c.float()).sum(-1)
            labels, mind = ref._assign_reference(x, c)
            assert bench.check_assign(torch, shape, x, c, cn, (labels, mind))["ok"]
            assert bench.check_assign(torch, shape, x, c, cn, (labels, None))["ok"]
            poisoned = mind.clone()
            poisoned.view(-1)[-1] = float("nan")
            assert not bench.check_assign(torch, shape, x, c, cn, (labels, poisoned))["ok"]
            if shape.m > 1:                     # point 0 of batch 0 labelled with its farthest centroid
                x0, c0 = (x[0, 0], c[0]) if shape.batched else (x[0], c)
                far = labels.clone()
                far.view(-1)[0] = int(((c0.float() - x0.float()) ** 2).sum(-1).argmax().item())
                assert not bench.check_assign(torch, shape, x, c, cn, (far, None), rows_per_batch=10 ** 6)["ok"]
    finally:
        bench.DEVICE = "cuda"
        common.DEVICE = "cuda"
