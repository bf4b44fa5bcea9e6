"""The measurement protocol (docs/measurement.md): check a candidate on every shape, time it against its
peers, and classify every way it fails.

measure(problem, candidate, backend) runs, in order:

 1. the launch plan: a launch on a stream other than the timed one is work the timer does not look at
    (untimed_work, check launch_plan) - known before anything runs;
 2. for each shape, tuning shape first, three trials on fresh inputs from consecutive seeds:
      candidate_first   outputs poisoned, the candidate runs, then the reference on copies of the inputs
      reference_first   the reference first on copies, then the candidate on poisoned outputs
      stale             the outputs hold the (rounded) reference of the previous trial's inputs - values a
                        previous run or a freed reference would have left - instead of poison
    and in each trial: inputs compared bit for bit with their copies (input_modified); the outputs as read in
    the timed stream's order at the end of the timed region against the outputs after a device-wide
    synchronization (any difference: untimed_work, check stream_order) and the work still pending at that
    point (untimed_work, check pending_at_end); the outputs against the reference:
      every poisoned element survived    stale_output (it writes nothing: only old memory can make it right)
      some survived                      partial_output
      written but wrong                  wrong_result
      (stale trial) wrong elements still equal to the stale values, while the poisoned trials of the shape
      were right                         stale_output (it writes only where it finds no value)
 3. right at the tuning shape and wrong at another: shape_special_case;
 4. timing (backends that can time): the candidate and the problem's peers at the tuning shape, interleaved in
    one process, outputs poisoned and L2 flushed before every timed run; one more candidate_first trial after
    the timing; a median below the physical floor (cakeir.measure.floor) is below_floor (check
    measured_time);
 5. every time the candidate claims (claimed_ms) against the floor of its shape: below_floor (check
    claimed_time).
The result (cakeir.measure.result) holds every trial and finding; its verdict is the most specific finding."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

from .backend import Backend
from .classification import Classification, Finding
from .floor import Machine, floor, load_machine
from .problem import Candidate, Problem, Shape, describe_shape
from .result import MeasurementResult, ShapeReport, Trial

OUTPUT_CLASSES = (Classification.INPUT_MODIFIED, Classification.STALE_OUTPUT, Classification.PARTIAL_OUTPUT,
                  Classification.WRONG_RESULT)


def _seeds(base: int) -> Iterator[int]:
    seed = base
    while True:
        yield seed
        seed += 1


class _ShapeRun:
    """The trials of one shape, with the findings they produce."""

    def __init__(self, service: "Measurement", shape: Shape, report: ShapeReport):
        self.m = service
        self.shape = shape
        self.report = report
        self.findings: List[Finding] = []
        self.previous_reference: Optional[Dict[str, Any]] = None

    def find(self, classification: Classification, check: str, detail: str, **figures: Any) -> None:
        self.findings.append(Finding(classification, check, detail, self.shape.label, dict(figures)))

    def trial(self, kind: str) -> None:
        m, problem, backend, shape = self.m, self.m.problem, self.m.backend, self.shape
        seed = next(m.seeds)
        inputs = backend.random_inputs(problem, shape, seed)
        copies = {name: backend.clone(t) for name, t in inputs.items()}
        reference = backend.reference(problem, copies, shape) if kind != "candidate_first" and kind != "after_timing" \
            else None
        if kind == "stale" and self.previous_reference is not None:
            outputs = backend.stale_outputs(problem, shape, self.previous_reference)
        else:
            outputs = backend.poisoned_outputs(problem, shape)
        before = {name: backend.clone(t) for name, t in outputs.items()} if kind == "stale" else None
        observation = backend.run(m.prepared, problem, m.candidate, {**inputs, **outputs}, shape)
        backend.synchronize()
        if reference is None:
            reference = backend.reference(problem, copies, shape)
        record = Trial(kind=kind, seed=seed, pending=observation.pending, pending_unit=observation.pending_unit)
        record.inputs_changed = [n for n in inputs if not backend.bit_equal(inputs[n], copies[n])]
        record.written_after_timed_region = [n for n in outputs if not backend.bit_equal(observation.snapshot[n],
                                                                                        outputs[n])]
        comparisons = {n: backend.compare(outputs[n], reference[n], problem.tolerance,
                                          before[n] if before is not None else None) for n in outputs}
        record.comparisons = {n: c.to_json() for n, c in comparisons.items()}
        self.report.trials.append(record)
        self.previous_reference = reference

        if record.inputs_changed:
            self.find(Classification.INPUT_MODIFIED, "inputs_untouched",
                      "%s trial: input(s) %s differ bit for bit from their copies after the run" %
                      (kind, ", ".join(record.inputs_changed)), seed=seed)
        if record.written_after_timed_region:
            self.find(Classification.UNTIMED_WORK, "stream_order",
                      "%s trial: output(s) %s changed after the timed region ended (read in the timed stream's "
                      "order there, and again after a device-wide synchronization)" %
                      (kind, ", ".join(record.written_after_timed_region)), seed=seed)
        if observation.pending > observation.pending_limit:
            self.find(Classification.UNTIMED_WORK, "pending_at_end",
                      "%s trial: %.4g %s of work still pending when the timed region ended (limit %.4g)" %
                      (kind, observation.pending, observation.pending_unit, observation.pending_limit),
                      pending=observation.pending, unit=observation.pending_unit)
        for name, c in comparisons.items():
            if kind == "stale":
                poisoned_clean = all(t.comparisons.get(name, {}).get("ok", False) and not t.inputs_changed
                                     for t in self.report.trials if t.kind != "stale")
                if c.stale > 0 and poisoned_clean:
                    self.find(Classification.STALE_OUTPUT, "stale_fill",
                              "%s: %d of %d elements kept the values a previous run left (right when poisoned)" %
                              (name, c.stale, c.total), stale=c.stale, total=c.total, seed=seed)
                elif c.wrong > 0 and poisoned_clean:
                    self.find(Classification.WRONG_RESULT, "reference",
                              "stale trial, %s: %d of %d elements wrong (rel. error %.3g)" %
                              (name, c.wrong, c.total, c.rel_err), wrong=c.wrong, seed=seed)
                continue
            if c.survivors == c.total and c.total > 0:
                self.find(Classification.STALE_OUTPUT, "poison",
                          "%s trial, %s: all %d poisoned elements survived - it writes nothing, so only what the "
                          "memory held before can make it right" % (kind, name, c.total), survivors=c.survivors,
                          seed=seed)
            elif c.survivors > 0:
                self.find(Classification.PARTIAL_OUTPUT, "poison",
                          "%s trial, %s: %d of %d poisoned elements survived" % (kind, name, c.survivors, c.total),
                          survivors=c.survivors, total=c.total, seed=seed)
            elif not c.ok:
                self.find(Classification.WRONG_RESULT, "reference",
                          "%s trial, %s: %d of %d elements wrong, rel. error %.3g (tolerance %.3g)" %
                          (kind, name, c.wrong, c.total, c.rel_err, c.tolerance), wrong=c.wrong,
                          rel_err=c.rel_err, seed=seed)

    def output_ok(self) -> bool:
        return not any(f.classification in OUTPUT_CLASSES for f in self.findings)


class Measurement:
    """One candidate against one problem on one backend (see the module's docstring for the steps)."""

    def __init__(self, problem: Problem, candidate: Candidate, backend: Backend, seed: int = 1000,
                 machine: Optional[Machine] = None, timing: bool = True):
        self.problem, self.candidate, self.backend = problem, candidate, backend
        self.machine = machine or load_machine("h200")
        self.timing = timing and backend.can_time
        self.seeds = _seeds(seed)
        self.result = MeasurementResult(problem=problem.name, candidate=candidate.name, backend=backend.describe(),
                                        seed=seed, machine=self.machine.to_json())
        self.prepared: Any = None
        self.result.record = candidate_record(problem, candidate)

    def run(self) -> MeasurementResult:
        result, problem, candidate = self.result, self.problem, self.candidate
        for launch in candidate.off_stream_launches():
            result.add(Finding(Classification.UNTIMED_WORK, "launch_plan",
                               "the plan launches %s on stream '%s', which the timer does not bracket" %
                               (launch.kernel, launch.stream)))
        self.prepared = self.backend.prepare(problem, candidate)
        ok_at: Dict[str, bool] = {}
        for shape in problem.all_shapes():
            report = ShapeReport(label=shape.label, sizes=dict(shape.sizes),
                                 tuning=shape.label == problem.tuning_shape.label,
                                 floor=floor(problem.work(shape), self.machine).to_json())
            run = _ShapeRun(self, shape, report)
            for kind in ("candidate_first", "reference_first", "stale"):
                run.trial(kind)
            if self.timing and report.tuning:
                self.time(shape, report)
                run.trial("after_timing")
            report.ok = run.output_ok()
            ok_at[shape.label] = report.ok
            result.shapes.append(report)
            for f in run.findings:
                result.add(f)
        tuning = problem.tuning_shape.label
        wrong_elsewhere = [label for label, ok in ok_at.items() if label != tuning and not ok]
        if ok_at.get(tuning) and wrong_elsewhere:
            result.add(Finding(Classification.SHAPE_SPECIAL_CASE, "shapes",
                               "right at the tuning shape %s (%s), wrong at %s" %
                               (tuning, describe_shape(problem.tuning_shape.sizes), ", ".join(wrong_elsewhere))))
        self.check_claims()
        return result

    def time(self, shape: Shape, report: ShapeReport) -> None:
        backend, problem = self.backend, self.problem
        inputs = backend.random_inputs(problem, shape, next(self.seeds))
        outputs = backend.poisoned_outputs(problem, shape)
        tensors = {**inputs, **outputs}
        functions = {self.candidate.name: backend.timed_run(self.prepared, problem, self.candidate, tensors, shape)}
        peer_outputs = backend.poisoned_outputs(problem, shape)
        peer_functions = backend.peer_runs(problem, {**inputs, **peer_outputs}, shape)
        functions.update(peer_functions)

        def poison_all() -> None:
            backend.poison(outputs)
            backend.poison(peer_outputs)

        times = backend.time(functions, poison_all)
        work = problem.work(shape)
        bound = floor(work, self.machine)
        record: Dict[str, Any] = {"shape": shape.label, "work": work.to_json(), "floor": bound.to_json(),
                                  "functions": {n: t.to_json() for n, t in times.items()}}
        mine = times[self.candidate.name]
        record["candidate_below_floor"] = mine.ms < bound.ms
        record["peers_below_floor"] = [n for n in peer_functions if times[n].ms < bound.ms]
        record["peer_over_candidate"] = {n: times[n].ms / mine.ms if mine.ms > 0 else None for n in peer_functions}
        self.result.timing = record
        if mine.ms < bound.ms:
            self.result.add(Finding(Classification.BELOW_FLOOR, "measured_time",
                                    "median %.4g ms is below the floor %.4g ms (%s-bound) of its work" %
                                    (mine.ms, bound.ms, bound.bound), shape.label,
                                    {"ms": mine.ms, "floor_ms": bound.ms}))

    def check_claims(self) -> None:
        shapes = {s.label: s for s in self.problem.all_shapes()}
        for label, ms in self.candidate.claimed_ms.items():
            if label not in shapes:
                self.result.notes.append("claimed time for unknown shape %s not checked" % label)
                continue
            bound = floor(self.problem.work(shapes[label]), self.machine)
            if ms < bound.ms:
                self.result.add(Finding(Classification.BELOW_FLOOR, "claimed_time",
                                        "claimed %.4g ms is below the floor %.4g ms (%s-bound: %s)" %
                                        (ms, bound.ms, bound.bound, ", ".join(
                                            "%s %.4g ms" % kv for kv in bound.terms_ms.items())), label,
                                        {"claimed_ms": ms, "floor_ms": bound.ms}))


def candidate_record(problem: Problem, candidate: Candidate) -> Dict[str, Any]:
    """What identifies the candidate measured: its source (path and SHA-256), resolved defines, launch plan
    and claimed times, and the problem's shapes."""
    import hashlib
    try:
        with open(candidate.source, "rb") as f:
            digest: Optional[str] = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        digest = None
    return {"source": candidate.source, "source_sha256": digest,
            "defines": candidate.resolved_defines(problem.tuning_shape),
            "launches": [{"kernel": x.kernel, "bind": dict(x.bind), "scalars": dict(x.scalars), "stream": x.stream}
                         for x in candidate.launches],
            "claimed_ms": dict(candidate.claimed_ms),
            "shapes": {s.label: dict(s.sizes) for s in problem.all_shapes()},
            "tuning_shape": problem.tuning_shape.label, "tolerance": problem.tolerance}


def measure(problem: Problem, candidate: Candidate, backend: Backend, *, seed: int = 1000,
            machine: Optional[Machine] = None, timing: bool = True) -> MeasurementResult:
    """Checks (and, where the backend can, times) `candidate` on `problem`; see the module's docstring."""
    return Measurement(problem, candidate, backend, seed, machine, timing).run()
