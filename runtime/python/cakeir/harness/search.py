"""The built-in search: an evolutionary search over tactics and their parameters driven only by cakec's
feedback and a measure callback (docs/harness.md, section "Search").

Algorithm (seeded random.Random, so a run is a function of its seed and of what cakec and the measure say):
  1. The seed candidate is evaluated like every other and must reach the measure step; it starts the
     population.
  2. Each generation draws `offspring` new children: a parent by a tournament of two among the population
     (the best `population` measured candidates, ranked by fitness), a random tactic among those whose
     preconditions the parent meets, and a random child among the tactic's legal choices (mutation).  When
     that child was already generated in this run, another random tactic is applied to it, up to
     `max_chain` in all (the tactic is then recorded as "a+b"); a draw that ends on a known candidate is a
     duplicate and nothing is evaluated.
  3. Each child goes through the gates, stopping at the first it fails; each outcome is in the run record,
     with the child's parent and the tactic that produced it (producer "tactic:NAME"):
       verify    cakec --verify-only
       estimate  cakec --estimate --json at every search shape
                 (both run by the executor - in this process, a local process pool or Ray tasks: scale.py -
                 for the whole batch at once; the candidate and its stages are recorded in draw order)
       prune     the geometric mean of its predicted times over the shapes is more than `prune_margin`
                 above the best prediction among the measured candidates (prune:slower:-), or another child
                 of the same generation is predicted faster (prune:outranked:-; ties go to the one drawn
                 first): recorded as a failed stage `prune`, never compiled or measured
     and the one child of the generation that is left goes on (with measure workers, one per worker: the
     best predicted ones, measured concurrently):
       compile   cakec -o KERNEL.cubin (ptxas, through the executor; skipped when ptxas is missing or
                 compile=False)
       measure   the callback (or a measure worker) times the candidate at every shape and checks it; a
                 candidate that fails the check is recorded as such and leaves the population alone
  4. Fitness is the geometric mean over the shapes of the measured times; without a measure callback the
     cost model's predicted times stand in and the result says so (fitness "predicted").
  5. The run stops when `budget` candidates were measured, `max_candidates` children were generated,
     `max_duplicates` draws in a row produced nothing new, or `time_limit` seconds have passed.
The result counts every gate's rejections (the pruning ratio is the share of generated children that never
reached the measure step) and the best-so-far fitness after each measured candidate."""

from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from .. import _tools
from .compiler import Compiler, shape_text
from .evaluate import stage_signature, write_candidate
from .family import Candidate
from .record import RunRecord
from .scale import CompileJob, ScreenJob, SerialExecutor, compile_job, screen_job
from .tactics import TACTICS, Tactic, applicable


@dataclass
class MeasureRequest:
    """What a measure callback gets: the candidate's id in the record, its kernel, source and -D values, the
    cubin (None when nothing was compiled), the shapes and the cost model's predictions at them."""
    candidate: int
    kernel: str
    source: str
    defines: Dict[str, Any]
    cubin: Optional[str]
    shapes: List[Dict[str, int]]
    predicted_ms: List[float]
    label: str = ""


@dataclass
class Measurement:
    """A measure callback's answer: one time per shape (ms, in the request's order), whether the outputs were
    correct, how it was measured ("gpu", "predicted") and anything else worth keeping (gpu, clocks, errors,
    peer times: recorded with the timings)."""
    times_ms: List[float]
    passed: bool = True
    method: str = "gpu"
    detail: Dict[str, Any] = field(default_factory=dict)


Measure = Callable[[MeasureRequest], Measurement]


def predicted_measure(request: MeasureRequest) -> Measurement:
    """The cost model as the measure step (CPU runs): the predicted times, labelled as predicted."""
    return Measurement(list(request.predicted_ms), True, "predicted")


def parse_shape(shape: Any) -> Dict[str, int]:
    return {name: int(value) for name, value in (part.split("=", 1) for part in shape_text(shape).split(","))}


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


@dataclass
class Entry:
    """One generated candidate and what happened to it."""
    index: int
    candidate: Candidate
    record_id: Optional[int]
    tactic: str
    parent: Optional[int]
    outcome: str = ""                  # measured | verify | estimate | prune | compile | incorrect
    predicted_ms: List[float] = field(default_factory=list)
    measured_ms: List[float] = field(default_factory=list)
    fitness: Optional[float] = None

    def to_json(self) -> Dict[str, Any]:
        return {"index": self.index, "candidate": self.record_id, "label": self.candidate.label(),
                "member": self.candidate.member.name if self.candidate.member else None,
                "defines": dict(self.candidate.defines), "tactic": self.tactic, "parent": self.parent,
                "outcome": self.outcome, "predicted_ms": self.predicted_ms, "measured_ms": self.measured_ms,
                "fitness_ms": self.fitness}


class Search:
    """One search run.  `record` receives every candidate; `measure` defaults to the cost model."""

    def __init__(self, compiler: Compiler, record: RunRecord, shapes: Sequence[Any],
                 measure: Optional[Measure] = None, budget: int = 50, population: int = 8, seed: int = 0,
                 prune_margin: float = 0.05, offspring: int = 10, max_candidates: int = 0, max_duplicates: int = 200,
                 tactics: Sequence[Tactic] = (), compile_cubin: bool = True, work_dir: Optional[str] = None,
                 log: Optional[Callable[[str], None]] = None, time_limit: float = 0.0, max_chain: int = 4,
                 executor: Any = None, measure_workers: Any = None) -> None:
        if not shapes:
            raise ValueError("the search needs at least one shape")
        self.compiler = compiler
        self.record = record
        self.shapes = [parse_shape(shape) for shape in shapes]
        self.measure = measure or predicted_measure
        self.fitness_kind = "predicted" if measure is None else "measured"
        self.budget = budget
        self.population_size = population
        self.rng = random.Random(seed)
        self.seed = seed
        self.prune_margin = prune_margin
        self.offspring = offspring
        self.max_candidates = max_candidates or 20 * budget
        self.max_duplicates = max_duplicates
        self.max_chain = max_chain
        self.tactics = list(tactics or TACTICS)
        self.compile_cubin = compile_cubin and _tools.find_ptxas() is not None
        self.work_dir = work_dir
        self.log = log or (lambda line: None)
        self.deadline = time.monotonic() + time_limit if time_limit > 0 else None
        self.entries: List[Entry] = []
        self.population: List[Entry] = []
        self.best_predicted: Optional[float] = None
        self.seen: Dict[Any, int] = {}
        self.duplicates = 0
        self.curve: List[Dict[str, Any]] = []
        self.executor = executor or SerialExecutor()
        self.measure_workers = measure_workers
        self.slots = len(measure_workers) if measure_workers else 1

    # -- one candidate through the gates -------------------------------------------------------------------

    def _folder(self, entry: Entry) -> str:
        base = self.work_dir or os.path.join(os.getcwd(), "cake-search")
        return os.path.join(base, "%04d" % entry.index)

    def _stage(self, entry: Entry, result: Any, shape: Any) -> bool:
        signature = None if result.ok else stage_signature(result, entry.candidate.text)
        if entry.record_id is not None:
            self.record.add_stage(entry.record_id, result.stage, result.ok, result.exit_code, result.diagnostics,
                                  result.output, shape, signature, self.compiler.version(), result.seconds)
        return bool(result.ok)

    @staticmethod
    def _prediction(summary_or_output: Dict[str, Any], kernel: str) -> Optional[float]:
        for entry in summary_or_output.get("kernels", []):
            if entry.get("kernel") == kernel and "predicted_ms" in entry:
                return float(entry["predicted_ms"])
        return None

    def _screen_job(self, candidate: Candidate) -> ScreenJob:
        return ScreenJob(self.compiler.path, self.compiler.timeout, candidate.text, dict(candidate.defines),
                         candidate.kernel, [dict(shape) for shape in self.shapes])

    def screen(self, candidate: Candidate, tactic: str, parent: Optional[Entry],
               results: Optional[List[Any]] = None) -> Entry:
        """verify -> estimate at every shape -> the margin check; entry.outcome stays "" when it passes.
        `results`: the stages as screen_job returned them (run by the executor); None runs them here."""
        if results is None:
            results = self.executor.map(screen_job, [self._screen_job(candidate)])[0]
        entry = Entry(len(self.entries), candidate, None, tactic, parent.record_id if parent else None)
        self.entries.append(entry)
        parents = [parent.record_id] if parent and parent.record_id is not None else []
        entry.record_id = self.record.add_candidate(candidate.text, candidate.defines, "", candidate.kernel,
                                                    "tactic:" + tactic if parent else tactic, parents)
        shapes = [None] + list(self.shapes)
        for result, shape in zip(results, shapes):
            if not self._stage(entry, result, shape):
                entry.outcome = result.stage
                return entry
            if result.stage == "estimate":
                value = self._prediction(result.output.get("estimate", {}), candidate.kernel)
                if value is None:
                    entry.outcome = "estimate"
                    return entry
                entry.predicted_ms.append(value)
        if len(entry.predicted_ms) != len(self.shapes):
            entry.outcome = "estimate"
            return entry
        predicted = geomean(entry.predicted_ms)
        if parent is not None and self.best_predicted is not None and \
                predicted > self.best_predicted * (1.0 + self.prune_margin):
            self._prune(entry, "slower", {"best_predicted_ms": self.best_predicted, "margin": self.prune_margin})
        return entry

    def _prune(self, entry: Entry, reason: str, why: Dict[str, Any]) -> None:
        """Records the cost model's rejection as a failed stage `prune` (signature prune:REASON:-)."""
        if entry.record_id is not None:
            output = dict(why, predicted_ms=entry.predicted_ms, geomean_ms=geomean(entry.predicted_ms))
            self.record.add_stage(entry.record_id, "prune", False, None, [], output, None, "prune:%s:-" % reason,
                                  self.compiler.version(), 0.0)
        entry.outcome = "prune"

    def finish(self, entry: Entry) -> Entry:
        """compile -> measure for a candidate that passed the screen."""
        return self.finish_all([entry])[0]

    def finish_all(self, entries: List[Entry]) -> List[Entry]:
        """compile (through the executor) -> measure (concurrently on the measure workers, when there are)
        for candidates that passed the screen; at most one per measure worker."""
        requests, ready = [], []
        compiled = self.executor.map(compile_job, [
            CompileJob(self.compiler.path, self.compiler.timeout, e.candidate.text, dict(e.candidate.defines),
                       e.candidate.kernel) for e in entries]) if self.compile_cubin else [None] * len(entries)
        for entry, outcome in zip(entries, compiled):
            candidate = entry.candidate
            folder = self._folder(entry)
            source = write_candidate(candidate.text, folder, candidate.kernel)
            cubin = None
            if outcome is not None:
                result, data, manifest = outcome
                if data is not None:
                    cubin = os.path.join(folder, candidate.kernel + ".cubin")
                    with open(cubin, "wb") as handle:
                        handle.write(data)
                    if manifest is not None:
                        with open(cubin + ".json", "wb") as handle:
                            handle.write(manifest)
                    result.output["cubin"] = cubin
                if not self._stage(entry, result, None):
                    entry.outcome = "compile"
                    continue
            requests.append(MeasureRequest(entry.record_id or 0, candidate.kernel, source, dict(candidate.defines),
                                           cubin, [dict(s) for s in self.shapes], list(entry.predicted_ms),
                                           candidate.label()))
            ready.append(entry)
        if self.measure_workers and requests:
            measurements = self.measure_workers.measure_all(requests)
        else:
            measurements = [self.measure(request) for request in requests]
        for entry, measurement in zip(ready, measurements):
            self._record_measurement(entry, measurement)
            if not measurement.passed:
                entry.outcome = "incorrect"
                continue
            entry.outcome = "measured"
            entry.measured_ms = list(measurement.times_ms)
            entry.fitness = geomean(measurement.times_ms)
            predicted = geomean(entry.predicted_ms)
            self.best_predicted = predicted if self.best_predicted is None else min(self.best_predicted, predicted)
        return entries

    def _record_measurement(self, entry: Entry, measurement: Measurement) -> None:
        if entry.record_id is None or measurement.method == "predicted":
            return                              # predictions are in the record already (the estimates)
        detail = dict(measurement.detail)
        for shape, time_ms in zip(self.shapes, measurement.times_ms):
            if time_ms is not None and math.isfinite(time_ms):
                self.record.add_timing(entry.record_id, time_ms, entry.candidate.kernel, shape,
                                       gpu=str(detail.get("gpu", "")), peer=str(detail.get("peer", "")),
                                       seed=detail.get("seed"), detail=detail)
        self.record.add_correctness(entry.record_id, measurement.passed, entry.candidate.kernel, self.shapes[0],
                                    method=measurement.method, detail=detail)

    # -- the loop --------------------------------------------------------------------------------------------

    def _admit(self, entry: Entry) -> None:
        self.population.append(entry)
        self.population.sort(key=lambda e: (e.fitness, e.index))
        del self.population[self.population_size:]
        best = self.population[0]
        self.curve.append({"measured": self.measured, "generated": len(self.entries) - 1, "candidate": entry.record_id,
                           "fitness_ms": entry.fitness, "best_ms": best.fitness, "best_candidate": best.record_id,
                           "best_label": best.candidate.label()})
        self.log("%4d measured  %-40s %9.4f ms   best %9.4f ms  (%s)" % (
            self.measured, entry.candidate.label()[:40], entry.fitness or 0.0, best.fitness or 0.0, entry.tactic))

    @property
    def measured(self) -> int:
        return sum(1 for e in self.entries if e.outcome == "measured")

    def _mutate(self) -> Optional[Any]:
        """(parent entry, tactic names joined by '+', child): a tournament of two picks the parent, then random
        applicable tactics with random legal parameters are applied until the result is new to this run
        (at most `max_chain` of them: near an explored optimum single steps only find known candidates)."""
        contenders = [self.rng.choice(self.population) for _ in range(2)]
        parent = min(contenders, key=lambda e: (e.fitness, e.index))
        current, names = parent.candidate, []
        for _ in range(self.max_chain):
            options = applicable(current, self.tactics)
            if not options:
                return None
            tactic = self.rng.choice(options)
            child = tactic.mutate(current, self.rng)
            if child is None:
                return None
            names.append(tactic.name)
            current = child
            if child.key() not in self.seen:
                return parent, "+".join(names), child
        return None

    def run(self, seed: Candidate) -> Dict[str, Any]:
        first = self.screen(seed, "seed", None)
        self.seen[seed.key()] = first.index
        if not first.outcome:
            self.finish(first)
        if first.outcome != "measured":
            raise ValueError("the seed %s failed at %s (candidate %s in %s)" % (
                seed.label(), first.outcome, first.record_id, self.record.path))
        self._admit(first)
        stop = "budget"
        while self.measured < self.budget:
            if len(self.entries) - 1 >= self.max_candidates:
                stop = "max_candidates"
                break
            if self.deadline is not None and time.monotonic() > self.deadline:
                stop = "time_limit"
                break
            batch = self._offspring()
            if not batch:
                stop = "exhausted"
                break
            passed = [entry for entry in batch if not entry.outcome]
            for entry in batch:
                if entry.outcome:
                    self.log("     rejected  %-40s at %s (%s)" % (entry.candidate.label()[:40], entry.outcome,
                                                                  entry.tactic))
            if not passed:
                continue
            # The cost model ranks the batch; the best predictions go on, one per measure worker (ties: the
            # earliest drawn), no more than the budget has left.
            passed.sort(key=lambda e: (geomean(e.predicted_ms), e.index))
            keep = max(1, min(self.slots, self.budget - self.measured))
            for entry in passed[keep:]:
                self._prune(entry, "outranked", {"batch_best_ms": geomean(passed[0].predicted_ms),
                                                 "batch_best_candidate": passed[0].record_id})
                self.log("     rejected  %-40s at prune: outranked in its batch (%s)" % (
                    entry.candidate.label()[:40], entry.tactic))
            for chosen in self.finish_all(passed[:keep]):
                if chosen.outcome == "measured":
                    self._admit(chosen)
                else:
                    self.log("     rejected  %-40s at %s (%s)" % (chosen.candidate.label()[:40], chosen.outcome,
                                                                  chosen.tactic))
        return self.result(seed, stop)

    def _offspring(self) -> List[Entry]:
        """Up to `offspring` new children, drawn first (the rng alone decides them), then screened (verify,
        estimate: through the executor, all at once; the margin check and the record in draw order); []
        when `max_duplicates` draws in a row gave nothing new."""
        drawn_children: List[Any] = []
        in_a_row = 0
        while len(drawn_children) < self.offspring and \
                len(self.entries) - 1 + len(drawn_children) < self.max_candidates:
            drawn = self._mutate()
            if drawn is None or drawn[2].key() in self.seen:
                self.duplicates += 1
                in_a_row += 1
                if in_a_row >= self.max_duplicates:
                    break
                continue
            in_a_row = 0
            self.seen[drawn[2].key()] = -1                  # drawn; its entry index is set when screened
            drawn_children.append(drawn)
        results = self.executor.map(screen_job, [self._screen_job(child) for _, _, child in drawn_children])
        batch: List[Entry] = []
        for (parent, names, child), stages in zip(drawn_children, results):
            entry = self.screen(child, names, parent, stages)
            self.seen[child.key()] = entry.index
            batch.append(entry)
        return batch

    def result(self, seed: Candidate, stop: str) -> Dict[str, Any]:
        children = self.entries[1:]
        counts = {gate: sum(1 for e in children if e.outcome == gate)
                  for gate in ("verify", "estimate", "prune", "compile", "incorrect", "measured")}
        rejected = counts["verify"] + counts["estimate"] + counts["prune"] + counts["compile"]
        best = self.population[0]
        base = self.entries[0]
        return {
            "format": "cake-search", "version": 1, "fitness": self.fitness_kind, "seed_rng": self.seed,
            "shapes": [shape_text(s) for s in self.shapes], "budget": self.budget, "stop": stop,
            "prune_margin": self.prune_margin, "offspring": self.offspring, "population": self.population_size,
            "seed": base.to_json(), "best": best.to_json(),
            "improvement": round(base.fitness / best.fitness, 4) if base.fitness and best.fitness else None,
            "counts": dict(counts, generated=len(children), duplicates=self.duplicates,
                           measured_total=self.measured,
                           rejected_before_measure=rejected),
            "pruning_ratio": round(rejected / len(children), 4) if children else 0.0,
            "curve": self.curve,
            "candidates": [e.to_json() for e in self.entries],
        }


def summary_markdown(result: Dict[str, Any]) -> str:
    """The run as a short markdown report: figures, the best-so-far table, the gates' counts."""
    counts = result["counts"]
    lines = ["# Search from %s (%s fitness)" % (result["seed"]["label"], result["fitness"]), "",
             "shapes %s; budget %d measured; population %d; rng seed %d; prune margin %.0f%%; stopped: %s" % (
                 ", ".join(result["shapes"]), result["budget"], result["population"], result["seed_rng"],
                 100 * result["prune_margin"], result["stop"]), "",
             "| | candidate | fitness (geomean ms) | per shape (ms) |", "|---|---|---|---|",
             "| seed | %s | %.4f | %s |" % (result["seed"]["label"], result["seed"]["fitness_ms"],
                                         ", ".join("%.4f" % t for t in result["seed"]["measured_ms"])),
             "| best | %s (candidate %s) | %.4f | %s |" % (result["best"]["label"], result["best"]["candidate"],
                                                      result["best"]["fitness_ms"],
                                                      ", ".join("%.4f" % t for t in result["best"]["measured_ms"])),
             "", "improvement over the seed: %.3fx" % (result["improvement"] or 0.0), "",
             "generated %d children (%d duplicate draws skipped): rejected by verify %d, estimate %d, prune %d, "
             "compile %d; incorrect %d; measured %d.  Rejected before the measure step: %d (%.1f%%)." % (
                 counts["generated"], counts["duplicates"], counts["verify"], counts["estimate"], counts["prune"],
                 counts["compile"], counts["incorrect"], counts["measured"], counts["rejected_before_measure"],
                 100 * result["pruning_ratio"]), "",
             "| measured | generated | candidate | fitness (ms) | best so far (ms) | best |", "|---|---|---|---|---|---|"]
    for point in result["curve"]:
        lines.append("| %d | %d | %s | %.4f | %.4f | %s |" % (point["measured"], point["generated"], point["candidate"],
                                                           point["fitness_ms"], point["best_ms"], point["best_label"]))
    return "\n".join(lines) + "\n"
