"""cakeir.generalize: a dispatch table fitted to per-shape timings (a small regret tree), its guards carrying
the variants' `requires`, validation on shapes not used to fit, and the spec it writes proven by
`cakec library build`."""

import json
import os
import subprocess

import pytest

from cakeir import generalize as gen

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INPUTS = os.path.join(REPO, "tests", "lit", "library", "Inputs")
NAMES = ["M", "N"]


def synthetic_times(shapes):
    """v8 is best for large M with N % 8 == 0, v4 for N % 4 == 0 otherwise, any is slow but runs everywhere."""
    times = {"v8": {}, "v4": {}, "any": {}, "never": {}}
    for s in shapes:
        k = gen.shape_key(s, NAMES)
        m, n = s["M"], s["N"]
        times["any"][k] = 10.0
        times["never"][k] = 50.0
        times["v4"][k] = 4.0 if n % 4 == 0 else gen.INFEASIBLE
        times["v8"][k] = (2.0 if m >= 4096 else 6.0) if n % 8 == 0 else gen.INFEASIBLE
    return times


TRAIN = [{"M": m, "N": n} for m in (64, 1000, 4096, 16384) for n in (3, 8, 12, 64, 100, 4097)]


def test_tree_buckets_and_table():
    times = synthetic_times(TRAIN)
    kept = gen.prune(times, ["v8", "v4", "any", "never"], [gen.shape_key(s, NAMES) for s in TRAIN], 1.25, "any")
    assert kept == ["v8", "v4", "any"]                 # 'never' is never within 1.25x of the best
    leaves = gen.fit_tree(TRAIN, NAMES, times, kept, 4)
    assert len(leaves) <= 4
    # Every training shape gets its best variant: the tree found N % 4, N % 8 and M > 2548.
    assert sum(leaf.cost for leaf in leaves) == pytest.approx(0.0)
    entries = gen.table_from_leaves(leaves, "any", {"v8": ["N % 8 == 0"], "v4": ["N % 4 == 0"]})
    assert entries[-1] == {"fallback": True, "variant": "any"}
    assert all("N % 8 == 0" in e["guard"] for e in entries if e["variant"] == "v8")


def test_validation_reports_held_out_boundary_and_tail(lib):
    times = synthetic_times(TRAIN + [{"M": 4095, "N": 16}, {"M": 4096, "N": 16}, {"M": 7, "N": 7}, {"M": 65537, "N": 1}])
    leaves = gen.fit_tree(TRAIN, NAMES, times, ["v8", "v4", "any"], 4)
    entries = gen.table_from_leaves(leaves, "any", {"v8": ["N % 8 == 0"], "v4": ["N % 4 == 0"]})
    lines = gen.validate(entries, {"boundary": [{"M": 4095, "N": 16}, {"M": 4096, "N": 16}],
                                   "tail": [{"M": 7, "N": 7}, {"M": 65537, "N": 1}]}, NAMES, times)
    assert lines[0].startswith("boundary: 2 shapes, chosen/best geomean")
    assert lines[1] == "tail: 2 shapes, chosen/best geomean 1.000, worst 1.000, infeasible choices 0"
    assert gen.choose(entries, {"M": 16384, "N": 64}) == "v8"
    assert gen.choose(entries, {"M": 7, "N": 7}) == "any"


def test_a_tie_between_divisors_goes_to_the_one_the_variants_require():
    # N = 8 and 64 are the even sizes, 3 and 4097 the odd ones: N % 2 and N % 8 split them alike
    shapes = [{"M": 64, "N": n} for n in (3, 8, 64, 4097)]
    times = {"v8": {}, "odd": {}, "any": {}}
    for s in shapes:
        k = gen.shape_key(s, NAMES)
        times["any"][k] = 10.0
        times["v8"][k] = 2.0 if s["N"] % 8 == 0 else gen.INFEASIBLE
        times["odd"][k] = 3.0 if s["N"] % 2 == 1 else 20.0
    plain = gen.fit_tree(shapes, NAMES, times, ["v8", "odd", "any"], 2, "any")
    assert [c.text() for c in plain[0].path] == ["N % 2 == 0"]   # first in DIVISORS
    preferred = gen.requires_divisors(["N % 8 == 0", "(M % 64 == 0 || M == 1)"])
    assert preferred == {("N", 8), ("M", 64)}
    leaves = gen.fit_tree(shapes, NAMES, times, ["v8", "odd", "any"], 2, "any", preferred)
    assert [(c.text(), leaf.variant) for leaf in leaves for c in leaf.path] == [("N % 8 == 0", "v8"),
                                                                                ("N % 8 != 0", "odd")]


def test_requires_guards_from_a_manifest():
    manifest = {"kernels": [{"name": "gemm", "ct_params": {"BN": 128, "BK": 64},
                             "requires": [{"expr": "K % BK == 0"}, {"expr": "KP == cdiv(K, BN) * BN"},
                                          {"expr": "BK * 2 == 128"}, {"expr": "N % 2 == 0 || N == 1"}]}]}
    assert gen.requires_guards(manifest, "gemm", ["M", "N", "K"]) == ["K % 64 == 0", "(N % 2 == 0 || N == 1)"]


def write_candidates_and_training(tmp_path):
    """tmp_path/candidates.json (the good.json library with its table replaced by the fallback `any`) and
    tmp_path/train.json; returns the synthetic times of the training shapes."""
    candidates = json.load(open(os.path.join(INPUTS, "good.json")))
    del candidates["dispatch"]
    candidates["fallback"] = "any"
    for v in candidates["variants"]:
        v["source"] = os.path.join(INPUTS, v["source"])
    (tmp_path / "candidates.json").write_text(json.dumps(candidates))
    (tmp_path / "train.json").write_text(json.dumps(TRAIN))
    return synthetic_times(TRAIN)


def test_end_to_end_spec_is_proven_by_cakec(tmp_path, cakec):
    times = write_candidates_and_training(tmp_path)
    (tmp_path / "times.json").write_text(json.dumps({"times": {k: v for k, v in times.items() if k != "never"}}))
    env = dict(os.environ, CAKE_CAKEC=cakec)
    assert gen.main([str(tmp_path / "candidates.json"), "--train", str(tmp_path / "train.json"),
                     "--times", str(tmp_path / "times.json"), "--cakec", cakec, "--max-leaves", "4",
                     "-o", str(tmp_path / "spec.json")]) == 0
    spec = json.load(open(tmp_path / "spec.json"))
    assert spec["dispatch"][-1] == {"fallback": True, "variant": "any"}
    result = subprocess.run([cakec, "library", "build", str(tmp_path / "spec.json"), "-o", str(tmp_path / "lib")],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr


def test_a_candidate_without_times_is_left_out_with_a_message(tmp_path, cakec, capsys):
    times = write_candidates_and_training(tmp_path)
    (tmp_path / "times.json").write_text(json.dumps({"times": {k: v for k, v in times.items() if k in ("v4", "any")}}))
    assert gen.main([str(tmp_path / "candidates.json"), "--train", str(tmp_path / "train.json"),
                     "--times", str(tmp_path / "times.json"), "--cakec", cakec, "-o", str(tmp_path / "spec.json")]) == 0
    assert "no times for v8" in capsys.readouterr().err
    spec = json.load(open(tmp_path / "spec.json"))
    assert {e["variant"] for e in spec["dispatch"]} == {"v4", "any"}
    # without the fallback's times there is no table
    (tmp_path / "times.json").write_text(json.dumps({"times": {"v4": times["v4"]}}))
    with pytest.raises(SystemExit):
        gen.main([str(tmp_path / "candidates.json"), "--train", str(tmp_path / "train.json"),
                  "--times", str(tmp_path / "times.json"), "--cakec", cakec, "-o", str(tmp_path / "spec.json")])


def test_a_refused_shape_costs_the_fallback_and_an_all_refused_leaf_is_the_fallback():
    fits, odd = "M=64,N=8", "M=64,N=3"
    times = {"v8": {fits: 2.0, odd: gen.INFEASIBLE}, "any": {fits: 10.0, odd: 10.0}}
    best = {fits: 2.0, odd: 10.0}
    # v8's guard refuses N = 3, which falls through to the fallback: regret log(10 / 10) there, not 1e6.
    assert gen.regret(times, "v8", [fits, odd], best, "any") == pytest.approx(0.0)
    assert gen.regret(times, "v8", [fits, odd], best) >= 1e6
    # A leaf holding only shapes v8 refuses goes to the fallback even though v8 ties with it: a v8 entry
    # there would have a guard no shape passes (E0857).
    assert gen.best_variant(times, ["v8", "any"], [odd], best, "any") == ("any", pytest.approx(0.0))
    # Over both shapes v8 has no regret (N = 3 reaches the fallback through v8's guard): one leaf, no split.
    leaves = gen.fit_tree([{"M": 64, "N": 8}, {"M": 64, "N": 3}], NAMES, times, ["v8", "any"], 4, "any")
    assert [(leaf.variant, leaf.path) for leaf in leaves] == [("v8", [])]


def test_a_derived_feature_splits_at_its_own_threshold(lib):
    """Wide tiles win unless the narrow tile's count fits one wave of 66 pairs: a split on M or N taken between
    training shapes would hold only near them, the feature's threshold holds for every shape."""
    feature = gen.Feature("cdiv(M, 256) * cdiv(N, 144)", [66, 132])

    def times_at(shapes):
        times = {"narrow": {}, "wide": {}}
        for s in shapes:
            k = gen.shape_key(s, NAMES)
            one_wave = feature.value(s) <= 66
            times["narrow"][k] = 1.0 if one_wave else 3.0
            times["wide"][k] = 2.0
        return times

    train = [{"M": m, "N": n} for m, n in ((1536, 1536), (2048, 2048), (4096, 4096), (1024, 1024), (512, 8192))]
    leaves = gen.fit_tree(train, NAMES, times_at(train), ["narrow", "wide"], 2, features=[feature])
    assert sum(leaf.cost for leaf in leaves) == pytest.approx(0.0)
    assert [c.text() for c in leaves[0].path] == ["(cdiv(M, 256) * cdiv(N, 144)) <= 66"]
    entries = gen.table_from_leaves(leaves, "wide", {})
    held_out = [{"M": 256, "N": 9000}, {"M": 2304, "N": 1000}, {"M": 2560, "N": 1600}, {"M": 768, "N": 3500}]
    times = times_at(held_out)
    for s in held_out:   # the best variant at every shape the fit never saw
        k = gen.shape_key(s, NAMES)
        assert gen.choose(entries, s) == min(times, key=lambda v: times[v][k])


def test_features_are_read_from_the_candidates_and_checked():
    spec = {"features": [{"expr": "cdiv(M, 128) * cdiv(N, 128)", "thresholds": [132]}], "variants": []}
    (feature,) = gen.read_features(spec)
    assert "features" not in spec and feature.thresholds == [132]
    with pytest.raises(ValueError, match="features\\[0\\]"):
        gen.read_features({"features": [{"expr": "M", "thresholds": [1.5]}]})



def test_estimate_prices_each_variant_as_its_kernel_sequence(cakec_only):
    """--estimate's times come from `cakec library estimate`: the two-kernel variants cost both launches (more
    than their first kernel alone), a variant whose `requires` refuses a shape is infeasible there."""
    with open(os.path.join(INPUTS, "split.json"), encoding="utf-8") as f:
        split = json.load(f)
    with open(os.path.join(INPUTS, "good.json"), encoding="utf-8") as f:
        good = json.load(f)
    shapes = [{"M": 1000, "N": 8192}, {"M": 4096, "N": 1002}]
    times = gen.estimate_times(split["variants"], shapes, NAMES, INPUTS, cakec_only, "one")
    key = gen.shape_key(shapes[0], NAMES)
    assert set(times) == {"one", "split", "split_steps"}
    alone = {k: v for k, v in split["variants"][1].items() if k not in ("then", "workspace")}
    first_only = gen.estimate_times([alone], shapes[:1], NAMES, INPUTS, cakec_only, "split")
    assert times["split"][key] > first_only["split"][key] > 0
    refused = gen.estimate_times(good["variants"], shapes, NAMES, INPUTS, cakec_only, "any")
    assert refused["v8"][gen.shape_key(shapes[1], NAMES)] == gen.INFEASIBLE          # N % 8 != 0
    assert refused["any"][gen.shape_key(shapes[1], NAMES)] < gen.INFEASIBLE


def test_candidates_only_writes_the_shortlist(tmp_path):
    """--candidates-only stops after pruning: -o is the candidates file (fallback and all) with the variants kept;
    it never writes over the candidates it read."""
    times = write_candidates_and_training(tmp_path)
    times["never"] = {k: 50.0 for k in times["any"]}
    candidates = json.load(open(tmp_path / "candidates.json"))
    candidates["variants"].append(dict(candidates["variants"][-1], name="never"))
    (tmp_path / "candidates.json").write_text(json.dumps(candidates))
    (tmp_path / "times.json").write_text(json.dumps({"times": times}))
    assert gen.main([str(tmp_path / "candidates.json"), "--train", str(tmp_path / "train.json"),
                     "--times", str(tmp_path / "times.json"), "--candidates-only",
                     "-o", str(tmp_path / "shortlist.json")]) == 0
    shortlist = json.load(open(tmp_path / "shortlist.json"))
    assert [v["name"] for v in shortlist["variants"]] == ["v8", "v4", "any"]     # 'never' is never within 1.25x
    assert shortlist["fallback"] == "any" and "dispatch" not in shortlist
    with pytest.raises(SystemExit):
        gen.main([str(tmp_path / "candidates.json"), "--train", str(tmp_path / "train.json"),
                  "--times", str(tmp_path / "times.json"), "--candidates-only", "-o", str(tmp_path / "candidates.json")])
    assert len(json.load(open(tmp_path / "candidates.json"))["variants"]) == 4


def test_a_variant_manifest_is_built_from_the_kernels_the_variant_compiles(tmp_path, monkeypatch):
    # A variant whose "compile" names some kernels of its source: the other kernels' requires may refuse its
    # defines (as `cakec library build` compiles only those), so the manifest comes from the same kernels.
    import cakeir._compile
    seen = {}
    (tmp_path / "kernel.cubin.json").write_text(json.dumps({"kernels": []}))

    def fake_compile(source, arch=None, defines=None, *, options=(), cakec=None, **kwargs):
        seen.update(source=source, options=list(options), defines=defines)
        return type("Module", (), {"cache_entry": str(tmp_path)})()

    monkeypatch.setattr(cakeir._compile, "compile", fake_compile)
    variant = {"name": "sk", "source": "k.cake", "compile": ["partial", "reduce"], "defines": {"BM": 64}}
    assert gen.variant_manifest(variant, "/specs", None) == {"kernels": []}
    assert seen == {"source": "/specs/k.cake", "options": ["--kernel", "partial", "--kernel", "reduce"],
                    "defines": {"BM": 64}}
    gen.variant_manifest({"name": "all", "source": "k.cake"}, "/specs", None)
    assert seen["options"] == []
