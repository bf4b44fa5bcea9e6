"""From per-shape timings to a dispatch table: the generalization step of a kernel library (docs/library.md).

    python -m cakeir.generalize CANDIDATES.json [--train train.json] -o spec.json
           [--times times.json | --estimate] [--max-leaves 6] [--prune 1.25] [--report report.txt]
           [--candidates-only]

CANDIDATES.json is a library spec (format cake-library-spec) whose "dispatch" is replaced by
`"fallback": "<variant>"`: the variant that serves every legal shape.  The steps:

1. times: every candidate's time at every shape - measured (--times, the JSON bench/library_bench.py writes:
   {"times": {variant: {"M=..,N=..": ms}}}) or predicted by the cost model (--estimate: `cakec library estimate`,
   each variant priced as the whole sequence of kernels it launches; a shape a kernel's `requires` refuses is
   infeasible).
2. pruning: a candidate that is never within --prune x of the best on any training shape is dropped.  With
   --candidates-only the tool stops here and -o is the candidates file with the variants kept: with --estimate,
   the cost model's shortlist to time on the device (library_bench.py --all-variants --variants ...).
3. buckets: a regression tree with at most --max-leaves leaves over shape features - thresholds on each shape
   variable and divisibility by 2, 8, 16, 64, 128, 256, and the candidates' derived "features" (below) at
   their given thresholds - grown greedily to minimise the summed log regret
   (log of chosen time / best time) of the training shapes, each leaf taking the variant with the least regret
   in it.  Leaves become dispatch entries whose guard is the leaf's path plus the variant's `requires` clauses
   (compile-time parameters replaced by their values), so a guard never admits a shape its variant refuses;
   the fallback ends the table.  `cakec library build` then proves the table (overlap, gaps, requires).
4. validation (with --validate shapes.json, sets never used to choose: "held_out", "boundary", "tail"): the
   geometric mean and worst of chosen/best per set, and every shape where the table's choice is infeasible.

A derived feature is an expression over the shape variables in the manifest language with the thresholds worth
testing, given in CANDIDATES.json as "features": [{"expr": "cdiv(M, 256) * cdiv(N, 144)", "thresholds": [66, 132]},
...] - e.g. the tile count of a tile width at whole waves of the GPU: a split "<= 66" there is "one wave" for every
shape, where a threshold on M or N taken between two training shapes would hold only near them.  A leaf's guard
then tests the expression itself.

Shape files are JSON lists of objects ({"M": 4096, "N": 4096, "K": 4096}), {"sets": {name: [...]}}, or a file
with a "shapes" list such as times.json itself, which is the default training set when --train is not given.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

Shape = Dict[str, int]
INFEASIBLE = float("inf")
DIVISORS = (2, 8, 16, 64, 128, 256)


def shape_key(shape: Shape, names: Sequence[str]) -> str:
    return ",".join("%s=%d" % (n, shape[n]) for n in names)


# ---------------------------------------------------------------------------------------------- conditions
class Condition:
    """One test on a shape: `var <= value`, `var > value`, `var % d == 0` or `var % d != 0`."""

    def __init__(self, var: str, op: str, value: int) -> None:
        self.var, self.op, self.value = var, op, value

    def holds(self, shape: Shape) -> bool:
        v = shape[self.var]
        if self.op == "<=":
            return v <= self.value
        if self.op == ">":
            return v > self.value
        if self.op == "%==":
            return v % self.value == 0
        return v % self.value != 0

    def text(self) -> str:
        var = self.var if self.var.isidentifier() else "(%s)" % self.var   # a derived feature's expression
        if self.op in ("<=", ">"):
            return "%s %s %d" % (var, self.op, self.value)
        return "%s %% %d %s 0" % (var, self.value, "==" if self.op == "%==" else "!=")

    def negation(self) -> "Condition":
        return Condition(self.var, {"<=": ">", ">": "<=", "%==": "%!=", "%!=": "%=="}[self.op], self.value)


class Feature:
    """A derived shape feature: an expression over the shape variables and the thresholds a split may use."""

    def __init__(self, expr: str, thresholds: Sequence[int]) -> None:
        self.expr, self.thresholds = expr, list(thresholds)

    def value(self, shape: Shape) -> int:
        from . import eval_expression
        return eval_expression(self.expr, **{k: v for k, v in shape.items() if k.isidentifier()})


def read_features(spec: Dict[str, Any]) -> List[Feature]:
    """The candidates' "features" (removed from the spec: the library's spec has no such key)."""
    out = []
    for i, f in enumerate(spec.pop("features", [])):
        if not isinstance(f, dict) or not isinstance(f.get("expr"), str) or not f.get("thresholds") or \
                not all(isinstance(t, int) for t in f["thresholds"]):
            raise ValueError("features[%d] is {\"expr\": EXPRESSION, \"thresholds\": [integers]}" % i)
        out.append(Feature(f["expr"], f["thresholds"]))
    return out


def with_features(shapes: Sequence[Shape], features: Sequence[Feature]) -> List[Shape]:
    """Each shape with its features' values added under their expressions (shape_key ignores them)."""
    return [dict(s, **{f.expr: f.value(s) for f in features}) for s in shapes]


def candidate_splits(shapes: Sequence[Shape], names: Sequence[str],
                     features: Sequence[Feature] = ()) -> List[Condition]:
    splits = [Condition(f.expr, "<=", t) for f in features for t in f.thresholds]
    for n in names:
        values = sorted({s[n] for s in shapes})
        for a, b in zip(values, values[1:]):
            splits.append(Condition(n, "<=", (a + b) // 2))
        for d in DIVISORS:
            if any(s[n] % d == 0 for s in shapes) and any(s[n] % d != 0 for s in shapes):
                splits.append(Condition(n, "%==", d))
    return splits


# ---------------------------------------------------------------------------------------------- the tree
def regret(times: Dict[str, Dict[str, float]], variant: str, keys: Sequence[str], best: Dict[str, float],
           fallback: Optional[str] = None) -> float:
    """Summed log(chosen / best) of the shapes `keys` when `variant` serves them.  A shape the variant refuses
    fails the entry's guard (the guard carries the variant's `requires`) and, the leaves being disjoint, falls
    through to the fallback: with `fallback` given it costs the fallback's time there, else (or where the
    fallback refuses it too) 1e6."""
    total = 0.0
    for k in keys:
        t = times[variant].get(k, INFEASIBLE)
        if t == INFEASIBLE and fallback is not None:
            t = times.get(fallback, {}).get(k, INFEASIBLE)
        if t == INFEASIBLE or best[k] <= 0 or best[k] == INFEASIBLE:
            total += 1e6 if t == INFEASIBLE else 0.0
        else:
            total += math.log(t / best[k])
    return total


def best_variant(times, variants, keys, best, fallback: Optional[str] = None) -> Tuple[str, float]:
    """The variant of least regret over `keys`; on a tie the one that refuses fewer of them.  A variant that
    refuses every one of them would make a guard no shape passes (cakec reports it shadowed, E0857): with
    `fallback` given, the leaf goes to the fallback instead."""
    def refused(v):
        return sum(1 for k in keys if times[v].get(k, INFEASIBLE) == INFEASIBLE)
    scored = [(regret(times, v, keys, best, fallback), refused(v), v) for v in variants]
    scored.sort()
    cost, n_refused, v = scored[0]
    if fallback is not None and keys and n_refused == len(keys):
        return fallback, regret(times, fallback, keys, best, fallback)
    return v, cost


class Leaf:
    def __init__(self, path: List[Condition], shapes: List[Shape], variant: str, cost: float) -> None:
        self.path, self.shapes, self.variant, self.cost = path, shapes, variant, cost


def fit_tree(shapes: List[Shape], names: Sequence[str], times: Dict[str, Dict[str, float]], variants: Sequence[str],
             max_leaves: int, fallback: Optional[str] = None,
             preferred: Optional[Set[Tuple[str, int]]] = None, features: Sequence[Feature] = ()) -> List[Leaf]:
    """Greedy best-first growth: split the leaf whose best split lowers the total regret most (with `fallback`,
    a shape a leaf's variant refuses is costed at the fallback's time: see regret).  Of splits that lower it
    equally, a divisibility split `v % d == 0` with (v, d) in `preferred` (the conditions the candidates'
    `requires` state, see requires_divisors) is taken first: where the training shapes cannot tell `K % 2` from
    `K % 8`, the kernels' own condition is the one that holds for the shapes not seen.  `features` add their
    thresholds to the candidate splits."""
    preferred = preferred or set()
    shapes = with_features(shapes, features)
    is_preferred = lambda c: c is not None and c.op == "%==" and (c.var, c.value) in preferred  # noqa: E731
    keys_of = lambda group: [shape_key(s, names) for s in group]  # noqa: E731
    best = {}
    for s in shapes:
        k = shape_key(s, names)
        best[k] = min(times[v].get(k, INFEASIBLE) for v in variants)
    v, c = best_variant(times, variants, keys_of(shapes), best, fallback)
    leaves = [Leaf([], shapes, v, c)]
    while len(leaves) < max_leaves:
        gain: float = 0.0
        where: Optional[int] = None
        split: Optional[Condition] = None
        parts: Any = None
        for i, leaf in enumerate(leaves):
            for cond in candidate_splits(leaf.shapes, names, features):
                yes = [s for s in leaf.shapes if cond.holds(s)]
                no = [s for s in leaf.shapes if not cond.holds(s)]
                if not yes or not no:
                    continue
                vy, cy = best_variant(times, variants, keys_of(yes), best, fallback)
                vn, cn = best_variant(times, variants, keys_of(no), best, fallback)
                g = leaf.cost - (cy + cn)
                if g > gain + 1e-9 or (where is not None and g >= gain - 1e-9 and is_preferred(cond)
                                       and not is_preferred(split)):
                    gain, where, split, parts = g, i, cond, ((yes, vy, cy), (no, vn, cn))
        if where is None or split is None:
            break
        leaf = leaves.pop(where)
        (yes, vy, cy), (no, vn, cn) = parts
        leaves.insert(where, Leaf(leaf.path + [split.negation()], no, vn, cn))
        leaves.insert(where, Leaf(leaf.path + [split], yes, vy, cy))
    return leaves


# ---------------------------------------------------------------------------------------------- variants
def requires_guards(manifest: Dict[str, Any], kernel: str, names: Sequence[str]) -> List[str]:
    """The variant's `requires` clauses over the shape variables `names` only, compile-time parameters
    replaced by their values (clauses naming anything else are the caller's contract)."""
    for k in manifest["kernels"]:
        if k["name"] == kernel or not kernel:
            ct = {n: v for n, v in k.get("ct_params", {}).items() if isinstance(v, int)}
            out = []
            for r in k.get("requires", []):
                expr = str(r["expr"])
                words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expr)) - {"cdiv", "min", "max", "true", "false"}
                if not words <= set(names) | set(ct):
                    continue
                if not words & set(names):
                    continue   # constant in the variant: nothing to guard
                for n, v in ct.items():
                    expr = re.sub(r"\b%s\b" % re.escape(n), str(v), expr)
                out.append("(" + expr + ")" if ("||" in expr) else expr)
            return out
    return []


def requires_divisors(guards: Iterable[str]) -> Set[Tuple[str, int]]:
    """(v, d) for every clause `v % d == 0` of the guards (requires_guards' output)."""
    out: Set[Tuple[str, int]] = set()
    for g in guards:
        for var, d in re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*%\s*(\d+)\s*==\s*0\b", g):
            out.add((var, int(d)))
    return out


def variant_manifest(variant: Dict[str, Any], spec_dir: str, cakec: Optional[str]) -> Dict[str, Any]:
    from ._compile import compile as cake_compile
    source = variant["source"] if os.path.isabs(variant["source"]) else os.path.join(spec_dir, variant["source"])
    options = [arg for kernel in variant.get("compile", ()) for arg in ("--kernel", kernel)]   # as the library build
    mod = cake_compile(source, arch=variant.get("arch"), defines=variant.get("defines", {}), options=options,
                       cakec=cakec)
    with open(os.path.join(mod.cache_entry, "kernel.cubin.json"), encoding="utf-8") as f:  # type: ignore[arg-type]
        return json.load(f)


def estimate_times(variants: Sequence[Dict[str, Any]], shapes: Sequence[Shape], names: Sequence[str], spec_dir: str,
                   cakec: str, fallback: str) -> Dict[str, Dict[str, float]]:
    """The cost model's predicted_ms of every variant at every shape (`cakec library estimate`: a variant of
    several kernels is priced as its whole sequence; infeasible where a kernel's `requires` refuses the shape)."""
    def absolute(entry: Dict[str, Any]) -> Dict[str, Any]:
        entry = dict(entry)
        if not os.path.isabs(entry["source"]):
            entry["source"] = os.path.join(spec_dir, entry["source"])
        return entry

    spec_variants = []
    for v in variants:
        v = absolute(v)
        if "then" in v:
            v["then"] = [absolute(step) if isinstance(step, dict) and "source" in step else step for step in v["then"]]
        spec_variants.append(v)
    spec = {"format": "cake-library-spec", "version": 1, "name": "generalize_estimate", "shape_vars": list(names),
            "variants": spec_variants, "dispatch": [{"fallback": True, "variant": fallback}]}
    times: Dict[str, Dict[str, float]] = {v["name"]: {} for v in variants}
    if not shapes:
        return times
    with tempfile.TemporaryDirectory(prefix="cakeir-generalize-") as tmp:
        path = os.path.join(tmp, "spec.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        cmd = [cakec, "library", "estimate", path, "--json"]
        for s in shapes:
            cmd += ["--shape", ",".join("%s=%d" % (n, s[n]) for n in names if n in s)]
        result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError("cakec library estimate failed (exit %d):\n%s" % (result.returncode, result.stderr))
    doc = json.loads(result.stdout)
    for s, priced in zip(shapes, doc["shapes"]):
        key = shape_key(s, names)
        for v in priced["variants"]:
            times[v["variant"]][key] = float(v["predicted_ms"]) if "predicted_ms" in v else INFEASIBLE
    return times


def prune(times: Dict[str, Dict[str, float]], variants: Sequence[str], keys: Sequence[str], factor: float,
          keep: str) -> List[str]:
    out = []
    for v in variants:
        if v == keep:
            out.append(v)
            continue
        for k in keys:
            best = min(times[w].get(k, INFEASIBLE) for w in variants)
            if times[v].get(k, INFEASIBLE) <= best * factor:
                out.append(v)
                break
    return out


def table_from_leaves(leaves: List[Leaf], fallback: str, guards_of: Dict[str, List[str]]) -> List[Dict[str, Any]]:
    entries: List[Dict[str, Any]] = []
    for leaf in leaves:
        if leaf.variant == fallback:
            continue
        parts = [c.text() for c in leaf.path] + guards_of.get(leaf.variant, [])
        entries.append({"guard": " && ".join(parts) if parts else "1", "variant": leaf.variant})
    entries.append({"fallback": True, "variant": fallback})
    return entries


def choose(entries: List[Dict[str, Any]], shape: Shape) -> str:
    """The table's choice for a shape, evaluated with the runtime's expression evaluator."""
    from . import eval_expression
    for e in entries:
        if e.get("fallback") or eval_expression(e["guard"], **shape):
            return e["variant"]
    raise AssertionError("no fallback")


def validate(entries, sets: Dict[str, List[Shape]], names, times) -> List[str]:
    lines = []
    for name, shapes in sets.items():
        ratios, bad = [], []
        for s in shapes:
            k = shape_key(s, names)
            chosen = choose(entries, s)
            best = min(row.get(k, INFEASIBLE) for row in times.values())
            t = times.get(chosen, {}).get(k)
            if t is None:
                continue
            if t == INFEASIBLE:
                bad.append(k)
                continue
            ratios.append(t / best if best > 0 else 1.0)
        if ratios:
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            lines.append("%s: %d shapes, chosen/best geomean %.3f, worst %.3f, infeasible choices %d"
                         % (name, len(shapes), geo, max(ratios), len(bad)))
        else:
            lines.append("%s: %d shapes, no timings" % (name, len(shapes)))
        lines += ["  infeasible: " + k for k in bad]
    return lines


def load_shapes(path: str) -> Dict[str, List[Shape]]:
    """A list of shapes, {"sets": {name: [...]}}, or a file with a "shapes" list (the times.json that
    bench/library_bench.py --all-variants writes names the shapes it measured)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict):
        return {"shapes": doc}
    return doc["sets"] if "sets" in doc else {"shapes": doc["shapes"]}


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cakeir.generalize", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("candidates")
    ap.add_argument("--train", help="the training shapes (default: the \"shapes\" of the --times file)")
    ap.add_argument("--times")
    ap.add_argument("--estimate", action="store_true")
    ap.add_argument("--validate")
    ap.add_argument("--max-leaves", type=int, default=6)
    ap.add_argument("--prune", type=float, default=1.25)
    ap.add_argument("--cakec")
    ap.add_argument("--candidates-only", action="store_true",
                    help="stop after pruning: -o is the candidates file with the variants kept (e.g. with --estimate, "
                         "the cost model's shortlist to measure on the device)")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--report")
    args = ap.parse_args(argv)
    from ._tools import find_cakec
    with open(args.candidates, encoding="utf-8") as f:
        spec = json.load(f)
    original = dict(spec)
    spec_dir = os.path.dirname(os.path.abspath(args.candidates))
    fallback = spec.pop("fallback")
    features = read_features(spec)
    if not args.train:
        if not args.times:
            ap.error("give --train (with --estimate, or a --times file without a \"shapes\" list)")
        args.train = args.times
    variants = spec["variants"]
    names = spec.get("shape_vars") or sorted({n for s in load_shapes(args.train)["shapes"] for n in s})
    train = [s for group in load_shapes(args.train).values() for s in group]
    sets = load_shapes(args.validate) if args.validate else {}
    every = train + [s for group in sets.values() for s in group]
    if args.times:
        with open(args.times, encoding="utf-8") as f:
            times = json.load(f)["times"]
    elif args.estimate:
        times = estimate_times(variants, every, names, spec_dir, args.cakec or find_cakec(), fallback)
    else:
        ap.error("give --times (measurements) or --estimate (the cost model)")
    unmeasured = [v["name"] for v in variants if v["name"] not in times]
    if fallback in unmeasured:
        ap.error("the fallback %s has no times in %s" % (fallback, args.times))
    if unmeasured:
        sys.stderr.write("cakeir.generalize: no times for %s in %s: left out of the table\n" %
                         (", ".join(unmeasured), args.times))
    keys = [shape_key(s, names) for s in train]
    kept = prune(times, [v["name"] for v in variants if v["name"] not in unmeasured], keys, args.prune, fallback)
    if args.candidates_only:
        if os.path.abspath(args.output) == os.path.abspath(args.candidates):
            ap.error("-o would overwrite the candidates file %s" % args.candidates)
        shortlist = dict(original, variants=[v for v in variants if v["name"] in kept])
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(shortlist, f, indent=2)
            f.write("\n")
        text = "candidates %d, kept after pruning (x%.2f): %d: %s\n" % (len(variants), args.prune, len(kept),
                                                                      ", ".join(kept))
        sys.stdout.write(text)
        if args.report:
            with open(args.report, "w", encoding="utf-8") as f:
                f.write(text)
        return 0
    guards = {v["name"]: requires_guards(variant_manifest(v, spec_dir, args.cakec), v.get("kernel", ""), names)
              for v in variants if v["name"] in kept}
    leaves = fit_tree(train, names, times, kept, args.max_leaves, fallback,
                      requires_divisors(g for gs in guards.values() for g in gs), features)
    spec["variants"] = [v for v in variants if v["name"] in kept]
    spec["dispatch"] = table_from_leaves(leaves, fallback, guards)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=2)
        f.write("\n")
    report = ["candidates %d, kept after pruning (x%.2f): %s" % (len(variants), args.prune, ", ".join(kept)),
              "leaves %d:" % len(leaves)]
    report += ["  %s -> %s (%d training shapes, regret %.3f)" % (" && ".join(c.text() for c in leaf.path) or "all",
                                                                leaf.variant, len(leaf.shapes), leaf.cost)
               for leaf in leaves]
    report += validate(spec["dispatch"], {"train": train, **sets}, names, times)
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
