#!/usr/bin/env python3
"""The built-in search on the GPU for a kernel family (--family, bench/search_problems.py): from its weak seed
(gemm: kernels/gemm/seed_weak_hopper.cake; kmeans: kernels/kmeans/assign_seed_naive.cake) through the tactics
of its family (kernels/gemm/family_hopper_bf16.json, kernels/kmeans/family_assign_bf16.json), with every
candidate that survives verify -> estimate -> prune -> compile timed on the GPU at two shapes (docs/harness.md,
section "Search").

    bash bench/search_build.sh                                                 # development machine: bench/out/search
    python3 bench/search_gemm.py --out DIR --measure predicted                 # anywhere: the same run, cost model as timer
    python3 bench/search_gemm.py --out DIR --budget 50                         # GPU machine (bench/out/search carried)
    python3 bench/search_gemm.py --family kmeans --out DIR --budget 50         # the k-means assignment search
    python3 bench/search_gemm.py --out DIR --jobs 16 --gpus 8                  # cakec in 16 processes, 8 GPU workers

On the device, cakec, its libraries and the runtime come from bench/out/search (search_build.sh); ptxas is the
machine's ($CUDA_HOME/bin, PATH) or the one that ships with triton.  Per measured candidate and shape: fresh
inputs from a generator seeded with (--seed, candidate, shape), the outputs poisoned, one launch checked against
torch (the problem's check: bench/search_problems.py), then --iters timed launches, each after writing a
buffer twice the size of L2 (the inputs come from DRAM), CUDA events around the launch alone; the median.
The hand-written variants of the family (at their defaults) and the torch peer are timed the same way first,
as the reference the search is judged against.

Outputs in --out: runs.db (the run record: every candidate, stage, prediction, timing and correctness check),
search.json (the search's result: counts, pruning ratio, best-so-far curve, every candidate; the IR of each is in
runs.db, the cubins in --work-dir), references.json,
summary.json (best found vs best hand-written per shape), search.md (tables) and best_so_far.svg.
Importing this file needs no torch (the timer imports it when it is built)."""

import argparse
import functools
import json
import math
import os
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
sys.path.insert(0, BENCH_DIR)

from cakeir import _tools  # noqa: E402
from cakeir.harness import Compiler, RunRecord  # noqa: E402
from cakeir.harness.family import Candidate  # noqa: E402
from cakeir.harness.evaluate import write_candidate  # noqa: E402
from cakeir.harness.scale import gpu_workers, make_executor  # noqa: E402
from cakeir.harness.search import Measurement, MeasureRequest, Search, geomean, summary_markdown  # noqa: E402
from search_problems import PROBLEMS  # noqa: E402

PACK = os.path.join(REPO, "bench", "out", "search")


def use_pack(pack):
    """cakec, its libraries and the runtime from the folder search_build.sh wrote (when it exists); the
    machine descriptions from the tree; a ptxas from triton when the machine has none on its paths."""
    if os.path.isfile(os.path.join(pack, "bin", "cakec")):
        os.environ["CAKE_CAKEC"] = os.path.join(pack, "bin", "cakec")
        os.environ["LD_LIBRARY_PATH"] = os.path.join(pack, "lib") + (
            ":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")
        os.environ.setdefault("CAKE_RUNTIME_LIB", os.path.join(pack, "lib", "libcake_runtime.so"))
    os.environ.setdefault("CAKE_MACHINES_DIR", os.path.join(REPO, "machines"))
    if _tools.find_ptxas() is None:
        import importlib.util
        spec = importlib.util.find_spec("triton")
        if spec is not None and spec.origin:
            folder = os.path.join(os.path.dirname(spec.origin), "backends", "nvidia", "bin")
            if os.path.isfile(os.path.join(folder, "ptxas")):
                os.environ["PATH"] = folder + os.pathsep + os.environ.get("PATH", "")


class GpuTimer:
    """The measure step on the GPU (torch + the cakeir runtime) for one problem; see the file's comment for the
    protocol."""

    def __init__(self, problem, seed, iters):
        import torch
        import cakeir
        self.torch, self.cakeir = torch, cakeir
        self.problem, self.seed, self.iters = problem, seed, iters
        props = torch.cuda.get_device_properties(0)
        self.gpu = props.name
        l2 = int(getattr(props, "L2_cache_size", 0) or 60 * 2**20)
        self.flush = torch.empty(2 * l2 // 4, dtype=torch.int32, device="cuda")
        self.peers = {}

    def inputs(self, shape, salt):
        gen = self.torch.Generator(device="cuda")
        gen.manual_seed(self.seed * 1000003 + salt)
        return self.problem.inputs(self.torch, shape, gen)

    def time(self, launch):
        torch = self.torch
        for _ in range(3):
            launch()
        torch.cuda.synchronize()
        pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(self.iters)]
        for start, end in pairs:
            self.flush.add_(1)                    # evicts the inputs and outputs from L2
            start.record()
            launch()
            end.record()
        torch.cuda.synchronize()
        times = sorted(start.elapsed_time(end) for start, end in pairs)
        return times[len(times) // 2]

    def check(self, args):
        error, ok = self.problem.check(self.torch, args)
        return (error if math.isfinite(error) else float("inf")), bool(math.isfinite(error) and ok)

    def peer(self, shape_key, shape):
        """The problem's torch peer at the shape, timed the same way (once per shape)."""
        if shape_key not in self.peers:
            self.peers[shape_key] = self.time(self.problem.peer(self.torch, self.inputs(shape, 0)))
        return self.peers[shape_key]

    def measure_cubin(self, cubin, kernel, shapes, salt):
        module = self.cakeir.load(cubin)
        launch_kernel = module[kernel]
        times, errors, passed = [], [], True
        for index, shape in enumerate(shapes):
            args = self.inputs(shape, salt * 16 + index + 1)
            launch_kernel(*args)
            self.torch.cuda.synchronize()
            error, ok = self.check(args)
            errors.append(error)
            passed = passed and ok
            times.append(self.time(lambda: launch_kernel(*args)) if ok else float("inf"))
        return times, errors, passed

    def __call__(self, request: MeasureRequest) -> Measurement:
        try:
            times, errors, passed = self.measure_cubin(request.cubin, request.kernel, request.shapes,
                                                       request.candidate)
        except Exception as error:  # noqa: BLE001 - a launch the runtime refuses is a failed candidate
            return Measurement([float("inf")] * len(request.shapes), False, "gpu",
                               {"gpu": self.gpu, "error": "%s: %s" % (type(error).__name__, error)})
        keys = [",".join("%s=%d" % kv for kv in sorted(s.items())) for s in request.shapes]
        return Measurement(times, passed, "gpu", {
            "gpu": self.gpu, "peer": self.problem.peer_name, "seed": self.seed, "rel_errors": errors,
            "iters": self.iters, "l2_flush_bytes": self.flush.numel() * 4,
            "peer_ms": [self.peer(k, s) for k, s in zip(keys, request.shapes)]})


def predicted_timer(request: MeasureRequest) -> Measurement:
    return Measurement(list(request.predicted_ms), True, "predicted")


def measure_references(compiler, record, timer, problem, shapes, folder):
    """The family's hand-written variants at their defaults (the member's kernel alone, as the search sees
    it): recorded (producer hand-written), estimated, compiled (GPU timing only) and measured."""
    references = []
    os.makedirs(folder, exist_ok=True)
    for path in problem.hand_written:
        candidate = Candidate.from_file(path)
        source = write_candidate(candidate.text, folder, candidate.kernel)
        cand_id = record.add_candidate(candidate.text, {}, "", candidate.kernel, "hand-written")
        entry = {"file": os.path.relpath(path, REPO), "kernel": candidate.kernel, "candidate": cand_id}
        cubin = None
        if timer is not predicted_timer:
            cubin = os.path.join(folder, candidate.kernel + ".cubin")
            result = compiler.compile(source, cubin)
            record.add_stage(cand_id, "compile", result.ok, result.exit_code, result.diagnostics, result.output,
                             None, None if result.ok else "compile:exit-%s:-" % result.exit_code,
                             compiler.version(), result.seconds)
            entry["compiled"] = result.ok
        if cubin is None or entry["compiled"]:
            predictions = []
            for shape in shapes:
                estimate = compiler.estimate(source, shape)
                kernels = [k for k in estimate.output.get("estimate", {}).get("kernels", [])
                           if k.get("kernel") == candidate.kernel] if estimate.ok else []
                predictions.append(kernels[0]["predicted_ms"] if kernels and "predicted_ms" in kernels[0] else None)
            request = MeasureRequest(cand_id, candidate.kernel, source, {}, cubin, shapes, predictions,
                                     candidate.label())
            measurement = timer(request) if timer is not predicted_timer or None not in predictions else \
                Measurement([float("inf")] * len(shapes), False, "predicted")
            entry.update(times_ms=measurement.times_ms, passed=measurement.passed, detail=measurement.detail)
            if measurement.method != "predicted":
                for shape, time_ms in zip(shapes, measurement.times_ms):
                    if math.isfinite(time_ms):
                        record.add_timing(cand_id, time_ms, candidate.kernel, shape,
                                          gpu=measurement.detail.get("gpu", ""), peer=problem.peer_name,
                                          seed=measurement.detail.get("seed"), detail=measurement.detail)
                record.add_correctness(cand_id, measurement.passed, candidate.kernel, shapes[0], method="gpu",
                                       detail=measurement.detail)
        references.append(entry)
        print("reference %-28s %s" % (entry["kernel"], entry.get("times_ms")), flush=True)
    return references


def svg_chart(result, best_reference_ms):
    """best-so-far fitness against measured candidates, with the best hand-written variant as a line."""
    points = [(p["measured"], p["best_ms"]) for p in result["curve"]]
    values = [v for _, v in points] + ([best_reference_ms] if best_reference_ms else [])
    top, bottom = max(values) * 1.05, min(values) * 0.95
    width, height, left, pad = 640, 360, 60, 30
    count = max(result["budget"], points[-1][0] if points else 1)
    x = lambda n: left + (width - left - pad) * (n - 1) / max(1, count - 1)  # noqa: E731
    y = lambda v: pad + (height - 2 * pad) * (top - v) / max(1e-12, top - bottom)  # noqa: E731
    lines = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
             % (width, height),
             '<text x="%d" y="18">best so far (geomean ms over %s; %s) vs measured candidates</text>'
             % (left, ", ".join(result["shapes"]), result["fitness"]),
             '<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="%s"/>'
             % " ".join("%.1f,%.1f" % (x(n), y(v)) for n, v in points)]
    if best_reference_ms:
        lines.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="4"/>'
                     % (left, width - pad, y(best_reference_ms), y(best_reference_ms)))
        lines.append('<text x="%d" y="%.1f" fill="#d62728">best hand-written %.4f ms</text>'
                     % (left + 4, y(best_reference_ms) - 4, best_reference_ms))
    for value in (top, bottom):
        lines.append('<text x="4" y="%.1f">%.4f</text>' % (y(value) + 4, value))
    lines.append('<text x="%d" y="%d">1</text><text x="%d" y="%d">%d</text>'
                 % (left, height - 8, width - pad - 10, height - 8, count))
    return "\n".join(lines + ["</svg>"]) + "\n"


def summarize(result, references, shapes):
    """best found vs the best hand-written variant, per shape (speed = 1 / time) and in geometric mean."""
    measured = [r for r in references if r.get("passed")]
    best_found = result["best"]["measured_ms"]
    per_shape = []
    for index, shape in enumerate(shapes):
        times = [r["times_ms"][index] for r in measured if math.isfinite(r["times_ms"][index])]
        best_hand = min(times) if times else None
        per_shape.append({"shape": shape, "best_found_ms": best_found[index], "best_hand_written_ms": best_hand,
                          "speed_vs_hand_written": round(best_hand / best_found[index], 4) if best_hand else None})
    hand_geomeans = [geomean(r["times_ms"]) for r in measured if all(math.isfinite(t) for t in r["times_ms"])]
    best_hand_geomean = min(hand_geomeans) if hand_geomeans else None
    return {"fitness": result["fitness"], "shapes": per_shape, "best": result["best"], "seed": result["seed"],
            "best_hand_written_geomean_ms": best_hand_geomean,
            "speed_vs_hand_written_geomean": round(best_hand_geomean / result["best"]["fitness_ms"], 4)
            if best_hand_geomean else None,
            "measured": result["counts"]["measured_total"], "generated": result["counts"]["generated"],
            "pruning_ratio": result["pruning_ratio"], "counts": result["counts"], "stop": result["stop"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(PROBLEMS), default="gemm",
                        help="the problem: its seed, family, hand-written variants and shapes (default gemm)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget", type=int, default=50, help="measured candidates, the seed included")
    parser.add_argument("--shape", action="append", help="search shapes (default: the family's, e.g. %s)" % " and ".join(PROBLEMS["gemm"].shapes))
    parser.add_argument("--measure", choices=["gpu", "predicted"], default="gpu")
    parser.add_argument("--seed", type=int, default=0, help="rng seed of the search and of the inputs")
    parser.add_argument("--offspring", type=int, default=10)
    parser.add_argument("--population", type=int, default=8)
    parser.add_argument("--prune-margin", type=float, default=0.05)
    parser.add_argument("--iters", type=int, default=20, help="timed launches per candidate and shape")
    parser.add_argument("--time-limit", type=float, default=480.0, help="seconds for the search (default 480)")
    parser.add_argument("--cakec-timeout", type=float, default=120.0,
                        help="seconds one cakec request (verify, estimate, compile) may run; past it the candidate "
                             "is rejected at that stage (signature STAGE:timeout:-; default 120)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="verify/estimate/compile in a local pool of N processes (default 1: in this one)")
    parser.add_argument("--gpus", type=int, default=1,
                        help="measure workers, one per GPU (devices 0..N-1); with N > 1 the N best predicted "
                             "children of a generation are measured at once (default 1)")
    parser.add_argument("--ray", default="", metavar="ADDRESS",
                        help="run cakec's stages as Ray tasks and the measure workers as Ray actors (one GPU "
                             "each) on the cluster at ADDRESS ('local': a local instance)")
    parser.add_argument("--pack", default=PACK, help="what search_build.sh wrote (default bench/out/search)")
    parser.add_argument("--work-dir", default=None,
                        help="the candidates' sources and cubins (default: a temporary folder, not --out)")
    args = parser.parse_args(argv)
    problem = PROBLEMS[args.family]
    shapes = args.shape or problem.shapes
    use_pack(args.pack)
    os.makedirs(args.out, exist_ok=True)
    database = os.path.join(args.out, "runs.db")
    compiler = Compiler(timeout=args.cakec_timeout)
    print(compiler.version(), flush=True)
    workers = None
    if args.measure == "gpu" and (args.gpus > 1 or args.ray):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (BENCH_DIR, os.environ.get("PYTHONPATH")) if p)
        workers = gpu_workers(functools.partial(GpuTimer, problem, args.seed, args.iters),
                              [str(i) for i in range(args.gpus)], ray_address=args.ray)
        timer = workers.workers[0]
    else:
        timer = GpuTimer(problem, args.seed, args.iters) if args.measure == "gpu" else predicted_timer
    executor = make_executor(args.jobs, args.ray)
    started = time.time()
    with RunRecord(database) as record:
        shape_dicts = [{k: int(v) for k, v in (p.split("=") for p in s.split(","))} for s in shapes]
        references = measure_references(compiler, record, timer, problem, shape_dicts, os.path.join(args.out, "references"))
        search = Search(compiler, record, shapes, None if args.measure == "predicted" else timer, args.budget,
                        args.population, args.seed, args.prune_margin, args.offspring,
                        work_dir=args.work_dir or tempfile.mkdtemp(prefix="cake-search-"),
                        log=lambda line: print(line, flush=True),
                        time_limit=args.time_limit, executor=executor,
                        measure_workers=workers if workers is not None and len(workers) > 1 else None)
        try:
            result = search.run(Candidate.from_file(problem.seed))
        finally:
            executor.close()
            if workers is not None:
                workers.close()
    result["seconds"] = round(time.time() - started, 1)
    summary = summarize(result, references, shapes)
    with open(os.path.join(args.out, "search.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "references.json"), "w", encoding="utf-8") as handle:
        json.dump(references, handle, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=1, sort_keys=True)
    with open(os.path.join(args.out, "best_so_far.svg"), "w", encoding="utf-8") as handle:
        handle.write(svg_chart(result, summary["best_hand_written_geomean_ms"]))
    table = ["", "| shape | best found (ms) | best hand-written (ms) | speed vs hand-written |", "|---|---|---|---|"]
    for row in summary["shapes"]:
        table.append("| %s | %.4f | %s | %s |" % (row["shape"], row["best_found_ms"],
                                                 "%.4f" % row["best_hand_written_ms"] if row["best_hand_written_ms"] else "-",
                                                 row["speed_vs_hand_written"]))
    with open(os.path.join(args.out, "search.md"), "w", encoding="utf-8") as handle:
        handle.write(summary_markdown(result) + "\n".join(table) + "\n")
    print(summary_markdown(result) + "\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
