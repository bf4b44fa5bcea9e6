"""Scale-out for the search (docs/harness.md, section "Scale-out"): where cakec's stages and the measurements
run, and how a run is split over a Slurm job array.

  screen_job, compile_job
            the CPU stages of one candidate as plain functions of plain data (the cakec path and limit, the
            IR text, -D values, kernel, shapes): each writes the source into a temporary folder of the
            machine it runs on and returns the StageResults (compile_job: also the cubin and manifest bytes),
            so a worker needs cakec and nothing of the caller's - no record, no work folder.  The caller
            records the results in order, so the record and the search do not depend on where they ran.
  SerialExecutor   in the calling process (the default).
  PoolExecutor     a local process pool of `jobs` workers (spawned processes).
  RayExecutor      Ray tasks (ray.init(address); `address` "local" starts a local instance).
  MeasureWorkers   one measure callable per GPU, fed concurrently (a thread each): worker i takes request
            i of a batch.  gpu_workers(factory, ...) builds them: locally one spawned process per GPU with
            CUDA_VISIBLE_DEVICES set to its device before the factory builds the timer in it; with Ray one
            actor per GPU (num_gpus=1: Ray pins each to its device).  The factory is a picklable callable that
            returns the measure callable (it runs in the worker).
  parse_shard, shard
            `--shard i/n`: the items whose index is i modulo n, in order - a deterministic partition, so n
            array tasks together do every item once; their records are merged afterwards (record_merge.py)."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .compiler import Compiler, StageResult
from .evaluate import write_candidate


@dataclass
class ScreenJob:
    cakec: str
    timeout: float
    text: str
    defines: Dict[str, Any]
    kernel: str
    shapes: List[Dict[str, int]]


def screen_job(job: ScreenJob) -> List[StageResult]:
    """verify, then estimate (--no-verify) at each shape; stops after the first failed stage."""
    compiler = Compiler(job.cakec, job.timeout)
    results: List[StageResult] = []
    with tempfile.TemporaryDirectory(prefix="cake-screen-") as folder:
        source = write_candidate(job.text, folder, job.kernel)
        results.append(compiler.verify(source, job.defines))
        for shape in job.shapes:
            if not results[-1].ok:
                break
            results.append(compiler.estimate(source, shape, job.defines))
    return results


@dataclass
class CompileJob:
    cakec: str
    timeout: float
    text: str
    defines: Dict[str, Any]
    kernel: str


def compile_job(job: CompileJob) -> Tuple[StageResult, Optional[bytes], Optional[bytes]]:
    """cakec -o KERNEL.cubin: the stage and the cubin's and manifest's bytes (None when it failed)."""
    compiler = Compiler(job.cakec, job.timeout)
    with tempfile.TemporaryDirectory(prefix="cake-compile-") as folder:
        source = write_candidate(job.text, folder, job.kernel)
        cubin = os.path.join(folder, (job.kernel or "candidate") + ".cubin")
        result = compiler.compile(source, cubin, job.defines)
        data = manifest = None
        if result.ok and os.path.isfile(cubin):
            with open(cubin, "rb") as handle:
                data = handle.read()
            if os.path.isfile(cubin + ".json"):
                with open(cubin + ".json", "rb") as handle:
                    manifest = handle.read()
        result.output.pop("cubin", None)
        return result, data, manifest


class SerialExecutor:
    name = "serial"
    workers = 1

    def map(self, function: Callable[[Any], Any], jobs: Sequence[Any]) -> List[Any]:
        return [function(job) for job in jobs]

    def close(self) -> None:
        pass


class PoolExecutor:
    """A local pool of `jobs` spawned worker processes."""
    name = "pool"

    def __init__(self, jobs: int) -> None:
        self.workers = max(1, int(jobs))
        self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))

    def map(self, function: Callable[[Any], Any], jobs: Sequence[Any]) -> List[Any]:
        return list(self.pool.map(function, jobs)) if jobs else []

    def close(self) -> None:
        self.pool.shutdown()


def ray_init(address: str, num_cpus: Optional[int] = None) -> Any:
    """ray, initialised once: "local" starts a local instance (num_cpus) whose workers import cakeir from this
    package's folder (and $PYTHONPATH); another address joins that cluster, whose workers must be able to
    import cakeir and run cakec at the same path."""
    import ray
    if not ray.is_initialized():
        if address == "local":
            package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH", "")) if p)
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": path}})
        else:
            ray.init(address=address, log_to_driver=False)
    return ray


class RayExecutor:
    """Ray tasks; connects to `address` ("local": a new local instance with `num_cpus`)."""
    name = "ray"

    def __init__(self, address: str, num_cpus: Optional[int] = None) -> None:
        ray = ray_init(address, num_cpus)
        self.ray = ray
        self.workers = int(ray.cluster_resources().get("CPU", 1))
        self._remote: Dict[Any, Any] = {}

    def map(self, function: Callable[[Any], Any], jobs: Sequence[Any]) -> List[Any]:
        if function not in self._remote:
            self._remote[function] = self.ray.remote(function)
        return self.ray.get([self._remote[function].remote(job) for job in jobs])

    def close(self) -> None:
        pass                                # the caller owns ray.init / ray.shutdown


def make_executor(jobs: int = 1, ray_address: str = "") -> Any:
    """RayExecutor when an address is given, else a PoolExecutor for jobs > 1, else SerialExecutor."""
    if ray_address:
        return RayExecutor(ray_address)
    return PoolExecutor(jobs) if jobs > 1 else SerialExecutor()


def _process_worker(factory: Callable[[], Callable[[Any], Any]], device: str, connection: Any) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = device
    measure = factory()
    while True:
        request = connection.recv()
        if request is None:
            break
        try:
            connection.send(("ok", measure(request)))
        except Exception as error:  # noqa: BLE001 - reported to the caller, which fails the candidate
            connection.send(("error", "%s: %s" % (type(error).__name__, error)))


class _ProcessMeasure:
    """A measure callable whose timer lives in a spawned process pinned to one GPU."""

    def __init__(self, factory: Callable[[], Callable[[Any], Any]], device: str) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_process_worker, args=(factory, device, child), daemon=True)
        self.process.start()
        self.lock = threading.Lock()
        self.device = device

    def __call__(self, request: Any) -> Any:
        with self.lock:
            self.connection.send(request)
            status, value = self.connection.recv()
        if status != "ok":
            raise RuntimeError("measure worker on device %s: %s" % (self.device, value))
        return value

    def close(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass
        self.process.join(timeout=30)


class _RayMeasure:
    """A measure callable whose timer lives in a Ray actor holding one GPU."""

    def __init__(self, actor: Any, ray: Any) -> None:
        self.actor, self.ray = actor, ray

    def __call__(self, request: Any) -> Any:
        return self.ray.get(self.actor.measure.remote(request))

    def close(self) -> None:
        self.ray.kill(self.actor)


class _MeasureActor:
    def __init__(self, factory: Callable[[], Callable[[Any], Any]]) -> None:
        self.timer = factory()

    def measure(self, request: Any) -> Any:
        return self.timer(request)


@dataclass
class MeasureWorkers:
    """Measure callables, one per GPU; measure_all() runs a batch concurrently (request i on worker i)."""
    workers: List[Callable[[Any], Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.workers)

    def measure_all(self, requests: Sequence[Any]) -> List[Any]:
        if len(requests) > len(self.workers):
            raise ValueError("%d requests for %d measure workers" % (len(requests), len(self.workers)))
        if len(requests) == 1:
            return [self.workers[0](requests[0])]
        with ThreadPoolExecutor(len(requests)) as threads:
            return list(threads.map(lambda pair: pair[0](pair[1]), zip(self.workers, requests)))

    def close(self) -> None:
        for worker in self.workers:
            close = getattr(worker, "close", None)
            if close:
                close()


def gpu_workers(factory: Callable[[], Callable[[Any], Any]], devices: Sequence[str], ray_address: str = "",
                gpus_per_worker: float = 1.0) -> MeasureWorkers:
    """One measure worker per device: spawned processes pinned by CUDA_VISIBLE_DEVICES, or (ray_address)
    Ray actors with num_gpus=gpus_per_worker and no CPU (Ray pins them; `devices` then only counts them)."""
    if ray_address:
        ray = ray_init(ray_address)
        # num_cpus=0: an actor that holds a CPU for its lifetime would starve the CPU stages' tasks
        actor_class = ray.remote(num_gpus=gpus_per_worker, num_cpus=0)(_MeasureActor)
        return MeasureWorkers([_RayMeasure(actor_class.remote(factory), ray) for _ in devices])
    return MeasureWorkers([_ProcessMeasure(factory, str(device)) for device in devices])


def parse_shard(text: str) -> Tuple[int, int]:
    """"i/n" -> (i, n) with 0 <= i < n."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError("--shard wants i/n (e.g. 0/4), not %r" % text) from None
    if count < 1 or not 0 <= index < count:
        raise ValueError("--shard %s: need 0 <= i < n" % text)
    return index, count


def shard(items: Sequence[Any], index: int, count: int) -> List[Any]:
    """The items whose position is index modulo count, in order."""
    return [item for position, item in enumerate(items) if position % count == index]
