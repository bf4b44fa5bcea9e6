"""Tactics: named, documented schedule transformations that the search and agents apply to candidates
(docs/harness.md, section "Tactics").

A tactic is data plus code: a name, the text that says what it does to a schedule and why it may pay, its
preconditions (checked on the candidate: the compile-time parameters it needs are declared, or the candidate's
family has a member that implements the schedule), the parameters it exposes with their legal values, and
apply(candidate) -> the children.  Two kinds:

  ParameterTactic  changes compile-time parameters the kernel already declares (pipeline depth S, tile shape
                   BM/BN, grouped rasterization GM, pingpong consumers PP, ...): one child per legal value
                   (per combination, for several parameters) other than the candidate's own.  The legal values
                   are the family member's, else the family's (its "parameters"), else the tactic's own list.
  ScheduleTactic   adds a schedule feature that no parameter expresses (warp specialization, persistent tiles,
                   cluster multicast, a TMA-store epilogue): the child is the family member with the
                   candidate's features plus this one (and the fewest others), carrying the parameter values
                   both declare.  The source is never edited: the family's files are the rewrites, each
                   checked by the verifier like any other kernel.
"Legal" means legal as far as the tactic knows: a value the kernel's `requires`, the verifier or the
resources refuse is rejected by verify or estimate, which is the cheap filter the search relies on.

predicted_effect() runs `cakec --estimate --json` on a parent and a child at the search shapes and reports
the predicted times and speed-ups."""

from __future__ import annotations

import itertools
import os
import random
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .compiler import Compiler, shape_text
from .evaluate import write_candidate
from .family import Candidate


@dataclass
class Tactic:
    name: str
    doc: str
    kind: str = ""

    def unmet(self, candidate: Candidate) -> List[str]:
        """The preconditions the candidate does not meet (empty: the tactic applies)."""
        raise NotImplementedError

    def legal_values(self, candidate: Candidate) -> Dict[str, List[Any]]:
        """The parameters this tactic sets on this candidate, with their legal values."""
        raise NotImplementedError

    def apply(self, candidate: Candidate, params: Optional[Dict[str, Any]] = None) -> List[Candidate]:
        """The children: every legal choice, or the one `params` names.  [] when the tactic does not apply."""
        raise NotImplementedError

    def mutate(self, candidate: Candidate, rng: random.Random) -> Optional[Candidate]:
        """One child with random legal parameters (None when there is none)."""
        children = self.apply(candidate)
        return rng.choice(children) if children else None

    def describe(self, candidate: Optional[Candidate] = None) -> Dict[str, Any]:
        entry: Dict[str, Any] = {"name": self.name, "kind": self.kind, "doc": self.doc}
        entry.update(self._static())
        if candidate is not None:
            entry["unmet"] = self.unmet(candidate)
            entry["applicable"] = not entry["unmet"]
            entry["legal_values"] = self.legal_values(candidate) if not entry["unmet"] else {}
        return entry

    def _static(self) -> Dict[str, Any]:
        return {}


@dataclass
class ParameterTactic(Tactic):
    """Sets compile-time parameters.  `parameters` maps each parameter to its fallback legal values; an entry
    of `aliases` lets the tactic act on a parameter spelt differently (PINGPONG for PP)."""
    parameters: Dict[str, List[int]] = field(default_factory=dict)
    aliases: Dict[str, List[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kind = "parameter"

    def _static(self) -> Dict[str, Any]:
        return {"parameters": {name: list(values) for name, values in self.parameters.items()},
                "aliases": dict(self.aliases),
                "preconditions": ["the kernel declares at least one of: %s" % ", ".join(
                    "/".join([name] + self.aliases.get(name, [])) for name in self.parameters),
                    "a legal value differs from the candidate's"]}

    def _declared(self, candidate: Candidate) -> Dict[str, str]:
        """{tactic parameter: the kernel's parameter name} for the parameters the kernel declares."""
        found = {}
        for name in self.parameters:
            for spelling in [name] + self.aliases.get(name, []):
                if spelling in candidate.params:
                    found[name] = spelling
                    break
        return found

    def legal_values(self, candidate: Candidate) -> Dict[str, List[Any]]:
        legal = {}
        for name, spelling in self._declared(candidate).items():
            listed = candidate.family.legal(candidate.member, spelling) if candidate.family else None
            legal[spelling] = listed if listed is not None else list(self.parameters[name])
        return legal

    def unmet(self, candidate: Candidate) -> List[str]:
        if not self._declared(candidate):
            return ["%s declares none of the compile-time parameters %s" % (
                candidate.kernel or os.path.basename(candidate.source), ", ".join(self.parameters))]
        if not self.apply(candidate):
            return ["every legal value is the candidate's own"]
        return []

    def apply(self, candidate: Candidate, params: Optional[Dict[str, Any]] = None) -> List[Candidate]:
        legal = self.legal_values(candidate)
        if not legal:
            return []
        if params:
            unknown = sorted(set(params) - set(legal))
            if unknown:
                raise ValueError("tactic %s sets %s, not %s" % (self.name, ", ".join(legal), ", ".join(unknown)))
            child = candidate.with_defines(params)
            return [child] if child.key() != candidate.key() else []
        names = sorted(legal)
        children, seen = [], {candidate.key()}
        for values in itertools.product(*(legal[name] for name in names)):
            child = candidate.with_defines(dict(zip(names, values)))
            if child.key() not in seen:
                seen.add(child.key())
                children.append(child)
        return children


@dataclass
class ScheduleTactic(Tactic):
    """Adds the schedule feature `feature`: moves the candidate to the family member that implements it."""
    feature: str = ""

    def __post_init__(self) -> None:
        self.kind = "schedule"

    def _static(self) -> Dict[str, Any]:
        return {"feature": self.feature,
                "preconditions": ["the candidate is a member of a kernel family (kernels/*/family_*.json)",
                                  "its schedule lacks '%s'" % self.feature,
                                  "a member of the family has its features plus '%s'" % self.feature]}

    def legal_values(self, candidate: Candidate) -> Dict[str, List[Any]]:
        """The parameters the target member introduces (the candidate does not declare them)."""
        target = self._target(candidate)
        if target is None or candidate.family is None:
            return {}
        family = candidate.family
        introduced = Candidate.from_file(target.source, {}, family).params
        return {name: family.legal(target, name) or [] for name in introduced
                if name not in candidate.params and family.legal(target, name) is not None}

    def _target(self, candidate: Candidate) -> Any:
        if candidate.family is None or candidate.member is None or self.feature in candidate.member.features:
            return None
        return candidate.family.with_feature(candidate.member, self.feature)

    def unmet(self, candidate: Candidate) -> List[str]:
        if candidate.family is None or candidate.member is None:
            return ["%s is not a member of a kernel family" % os.path.basename(candidate.source)]
        if self.feature in candidate.member.features:
            return ["%s already has '%s'" % (candidate.member.name, self.feature)]
        if self._target(candidate) is None:
            return ["no member of family %s implements '%s' on top of %s" % (
                candidate.family.name, self.feature, candidate.member.name)]
        return []

    def apply(self, candidate: Candidate, params: Optional[Dict[str, Any]] = None) -> List[Candidate]:
        target = self._target(candidate)
        if target is None:
            return []
        legal = self.legal_values(candidate)
        if params:
            unknown = sorted(set(params) - set(legal))
            if unknown:
                raise ValueError("tactic %s sets %s, not %s" % (self.name, ", ".join(legal) or "nothing",
                                                                ", ".join(unknown)))
            return [candidate.switched_to(target, params)]
        names = sorted(legal)
        children, seen = [], set()
        for values in itertools.product(*(legal[name] for name in names)):
            child = candidate.switched_to(target, dict(zip(names, values)))
            if child.key() not in seen:
                seen.add(child.key())
                children.append(child)
        return children


TACTICS: List[Tactic] = [
    ParameterTactic(
        "pipeline-depth",
        "Change the number of shared-memory stages S of the TMA/cp.async ring.  More stages keep more k-tiles in "
        "flight (hides DRAM/L2 latency when the producer runs ahead), at S x (BM + BN) x BK x 2 bytes of shared "
        "memory: fewer blocks per SM, or no room for an epilogue tile.",
        parameters={"S": [2, 3, 4, 5, 6]}),
    ParameterTactic(
        "tile-shape",
        "Change the block tile BM x BN (the wgmma N is BN; each consumer warpgroup owns 64 rows of BM).  Larger "
        "tiles raise arithmetic intensity (fewer L2/shared bytes per FLOP) and the accumulator's registers "
        "(BN / 2 per thread); smaller ones give more blocks and a smaller last-wave tail.",
        parameters={"BM": [64, 128, 192, 256], "BN": [64, 96, 128, 160, 192, 224, 256]}),
    ParameterTactic(
        "grouped-rasterization",
        "Change GM, the number of consecutive M tiles (pairs) a persistent tile scheduler walks together across "
        "the N tiles: the A and B panels in use at one time stay in L2 (GM = 1: row-major tile order).",
        parameters={"GM": [1, 2, 4, 8, 16]}),
    ParameterTactic(
        "pingpong-consumers",
        "Let the consumer warpgroups take turns issuing their MMAs (named barriers, PP = 1) so one's epilogue "
        "overlaps the other's tensor-core work; PP = 0 issues them together.",
        parameters={"PP": [0, 1]}, aliases={"PP": ["PINGPONG"]}),
    ParameterTactic(
        "register-a-operand",
        "Keep the A operand in registers (AREG = 1: loaded once per work tile with ldmatrix, wgmma reads only B "
        "from shared memory) or read it from shared memory (AREG = 0; needed when registers run out).",
        parameters={"AREG": [0, 1]}),
    ParameterTactic(
        "threads-per-block",
        "Change TPB, the threads of a block in a kernel that gives each thread its own work item (one point, "
        "one row): larger blocks share more per-block reads through L1, smaller ones leave a shorter last wave "
        "and let more blocks share an SM.",
        parameters={"TPB": [64, 128, 256, 512]}),
    ScheduleTactic(
        "tensor-cores",
        "Compute the inner products on the tensor cores: operand tiles staged in shared memory and multiplied "
        "by MMA instructions, the rest of the computation (an argmin, an epilogue) fused on the accumulator "
        "registers.", feature="tensor-cores"),
    ScheduleTactic(
        "warp-specialize",
        "Split the block into a producer warpgroup that only issues TMA copies (setmaxnreg down to 40 registers) "
        "and consumer warpgroups that only run wgmma (setmaxnreg up to 232), with full/empty mbarrier rings and "
        "one wgmma group in flight: the copies no longer wait for the math and the math never waits on a "
        "block-wide barrier.", feature="warp-specialized"),
    ScheduleTactic(
        "persistent-tiles",
        "Launch one block per SM and let each walk output tiles with a grouped (GM) tile order: no tail of "
        "relaunched blocks, the producer prefetches the next tile during the epilogue, and grouped panels stay "
        "in L2.", feature="persistent"),
    ScheduleTactic(
        "cluster-multicast",
        "Run 2-CTA clusters whose CTAs share the B tile: each loads half and multicasts it into both (TMA "
        "multicast), halving B's L2 traffic; both CTAs' consumers release each stage.", feature="cluster-multicast"),
    ScheduleTactic(
        "tma-store-epilogue",
        "Write the output through shared memory (stmatrix) and TMA stores instead of per-thread global stores; "
        "the store is asynchronous, so the next tile starts while it drains (costs one staging tile of shared "
        "memory: fewer stages).", feature="tma-store-epilogue"),
    ScheduleTactic(
        "split-k",
        "Split the K loop over several blocks and reduce their partial tiles: more blocks for shapes with few "
        "output tiles and a long K.", feature="split-k"),
    ScheduleTactic(
        "stream-k",
        "Divide the total k-iterations evenly over the persistent blocks (tiles split across blocks where needed, "
        "fixed up in a reduction): no wave quantization.", feature="stream-k"),
    ScheduleTactic(
        "double-buffered-accumulators",
        "Alternate two accumulators between consecutive tiles so one tile's epilogue overlaps the next tile's "
        "MMAs.", feature="double-buffered-accumulators"),
]

TACTICS_BY_NAME: Dict[str, Tactic] = {tactic.name: tactic for tactic in TACTICS}


def tactic(name: str) -> Tactic:
    try:
        return TACTICS_BY_NAME[name]
    except KeyError:
        raise KeyError("unknown tactic %r (tactics: %s)" % (name, ", ".join(TACTICS_BY_NAME))) from None


def applicable(candidate: Candidate, tactics: Sequence[Tactic] = ()) -> List[Tactic]:
    """The tactics (of `tactics`, default all) whose preconditions the candidate meets."""
    return [t for t in (tactics or TACTICS) if not t.unmet(candidate)]


def predicted_ms(compiler: Compiler, candidate: Candidate, shape: Any, folder: str) -> Dict[str, Any]:
    """The cost model's prediction for the candidate's kernel at one shape: {predicted_ms, bottleneck} or
    {error}."""
    path = write_candidate(candidate.text, folder, candidate.kernel or "candidate")
    result = compiler.estimate(path, shape, candidate.defines)
    if not result.ok:
        first = result.diagnostics[0] if result.diagnostics else {}
        return {"error": "%s %s" % (first.get("code", "exit %s" % result.exit_code), first.get("message", ""))}
    for entry in result.output["estimate"].get("kernels", []):
        if entry.get("kernel") == candidate.kernel and "predicted_ms" in entry:
            return {"predicted_ms": float(entry["predicted_ms"]), "bottleneck": entry.get("bottleneck", "")}
    return {"error": "no estimate for kernel %s" % candidate.kernel}


def predicted_effect(compiler: Compiler, parent: Candidate, child: Candidate, shapes: Sequence[Any]) -> Dict[str, Any]:
    """Parent and child estimated at each shape: {shape: {before_ms, after_ms, speedup}} (speed-up = before /
    after; an estimate that fails gives its error instead)."""
    effect: Dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cake-tactic-") as folder:
        for shape in shapes:
            before = predicted_ms(compiler, parent, shape, os.path.join(folder, "parent"))
            after = predicted_ms(compiler, child, shape, os.path.join(folder, "child"))
            entry: Dict[str, Any] = {"before": before, "after": after}
            if "predicted_ms" in before and "predicted_ms" in after:
                entry["speedup"] = round(before["predicted_ms"] / after["predicted_ms"], 4)
            effect[shape_text(shape)] = entry
    return effect
