"""Scale-out of the search (cakeir.harness.scale) against the built cakec, on the CPU: a cost-model search from
the weak GEMM seed gives the same candidates, outcomes and predictions whether cakec's stages run in this
process, in a local process pool of two or as Ray tasks on a local Ray instance (ray.init(num_cpus=2)); two
measure workers (spawned processes pinned by CUDA_VISIBLE_DEVICES, and Ray actors) take one finalist each
per generation; --shard i/n partitions deterministically, and the records of `search --runs 2 --shard 0/2`
and `1/2`, merged (record merge), hold what the unsharded `--runs 2` recorded."""

import json
import os

import pytest

from cakeir.harness import Compiler, RunRecord
from cakeir.harness.family import Candidate
from cakeir.harness.scale import (MeasureWorkers, PoolExecutor, RayExecutor, SerialExecutor, gpu_workers,
                                  parse_shard, shard)
from cakeir.harness.search import Measurement, Search

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = os.path.join(REPO, "kernels", "gemm", "seed_weak_hopper.cake")
SHAPES = ["M=4096,N=4096,K=4096", "M=8192,N=8192,K=4096"]


class FakeTimer:
    """A measure callable for the CPU: the predictions as times, and where it ran."""

    def __call__(self, request):
        return Measurement([t * 1.01 for t in request.predicted_ms], True, "gpu",
                           {"gpu": "fake", "device": os.environ.get("CUDA_VISIBLE_DEVICES", ""), "pid": os.getpid()})


def fake_timer_factory():
    return FakeTimer()


def _search(cakec, tmp_path, name, executor, workers=None, budget=4):
    with RunRecord(str(tmp_path / (name + ".db"))) as record:
        search = Search(Compiler(cakec), record, SHAPES, FakeTimer() if workers else None, budget=budget,
                        offspring=4, seed=5, compile_cubin=False, work_dir=str(tmp_path / name),
                        executor=executor, measure_workers=workers)
        result = search.run(Candidate.from_file(SEED))
        timings = [dict(t) for t in record.conn.execute("SELECT candidate_id, detail FROM timings ORDER BY id")]
    return result, timings


def _strip(result):
    return [(c["label"], c["tactic"], c["outcome"], c["predicted_ms"]) for c in result["candidates"]]


def test_shard_partition():
    assert parse_shard("1/3") == (1, 3)
    for bad in ("3/3", "1", "a/b", "0/0"):
        with pytest.raises(ValueError):
            parse_shard(bad)
    items = list(range(10))
    parts = [shard(items, i, 3) for i in range(3)]
    assert parts[0] == [0, 3, 6, 9] and sorted(sum(parts, [])) == items


def test_pool_and_ray_give_the_serial_search(cakec_only, tmp_path, monkeypatch):
    serial, _ = _search(cakec_only, tmp_path, "serial", SerialExecutor())
    pool = PoolExecutor(2)
    try:
        pooled, _ = _search(cakec_only, tmp_path, "pool", pool)
    finally:
        pool.close()
    assert _strip(pooled) == _strip(serial) and pooled["curve"] == serial["curve"]
    ray = pytest.importorskip("ray", reason="ray is not installed (utils/common.sh installs it into the test venv)")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([os.path.dirname(os.path.abspath(__file__)),
                                                      os.environ.get("PYTHONPATH", "")]))
    # Ray's own binaries (gcs_server, raylet) and workers are started from this environment: the sanitizer
    # pass preloads the ASan / UBSan runtimes into python, under which they crash and the instance hangs.
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    try:
        executor = RayExecutor("local", num_cpus=2)
        assert executor.workers == 2
        distributed, _ = _search(cakec_only, tmp_path, "ray", executor)
        assert _strip(distributed) == _strip(serial) and distributed["curve"] == serial["curve"]
        actors = gpu_workers(fake_timer_factory, ["0", "1"], ray_address="local", gpus_per_worker=0)
        try:
            result, timings = _search(cakec_only, tmp_path, "ray-measure", executor, actors, budget=5)
        finally:
            actors.close()
        assert result["counts"]["measured_total"] == 5
        assert len({json.loads(t["detail"])["pid"] for t in timings}) == 2   # both actors measured
    finally:
        ray.shutdown()


def test_one_measure_process_per_device(cakec_only, tmp_path):
    workers = gpu_workers(fake_timer_factory, ["3", "5"])
    try:
        assert isinstance(workers, MeasureWorkers) and len(workers) == 2
        result, timings = _search(cakec_only, tmp_path, "two-gpus", SerialExecutor(), workers, budget=5)
    finally:
        workers.close()
    counts = result["counts"]
    assert counts["measured_total"] == 5 and counts["measured"] == 4
    devices = {json.loads(t["detail"])["device"] for t in timings}
    assert devices == {"3", "5"}                                  # each process sees only its own device
    # two finalists per generation: some two measured candidates were admitted after the same batch
    curve = result["curve"]
    assert any(a["generated"] == b["generated"] for a, b in zip(curve[1:], curve[2:]))


def test_shards_merge_into_the_unsharded_record(cakec_only, tmp_path):
    """search --runs 2 --shard 0/2 and 1/2 into two records, merged, hold what one unsharded run recorded."""
    from cakeir.harness.__main__ import main as harness_main
    common = ["search", "--seed", SEED, "--shape", SHAPES[0], "--shape", SHAPES[1], "--budget", "2",
              "--offspring", "3", "--runs", "2", "--no-compile", "--quiet", "--cakec", cakec_only]
    whole = str(tmp_path / "whole.db")
    assert harness_main(common + ["--db", whole, "--work-dir", str(tmp_path / "w")]) == 0
    shards = []
    for index in range(2):
        shards.append(str(tmp_path / ("shard%d.db" % index)))
        assert harness_main(common + ["--db", shards[-1], "--shard", "%d/2" % index,
                                      "--work-dir", str(tmp_path / ("s%d" % index))]) == 0
    merged = str(tmp_path / "merged.db")
    assert harness_main(["record", "--db", merged, "merge"] + shards) == 0

    def content(path):
        with RunRecord(path) as record:
            candidates = sorted((r["ir_sha256"], r["defines"], r["producer"]) for r in record.conn.execute(
                "SELECT ir_sha256, defines, producer FROM candidates"))
            stages = sorted((r[0], r[1], r[2], r[3]) for r in record.conn.execute(
                "SELECT c.ir_sha256 || c.defines, s.stage, s.shape, s.ok FROM stages s JOIN candidates c "
                "ON c.id = s.candidate_id"))
            edges = sorted(tuple(r) for r in record.conn.execute(
                "SELECT a.ir_sha256 || a.defines, b.ir_sha256 || b.defines FROM lineage l JOIN candidates a "
                "ON a.id = l.child_id JOIN candidates b ON b.id = l.parent_id"))
            estimates = record.conn.execute("SELECT COUNT(*) FROM estimates").fetchone()[0]
        return candidates, stages, edges, estimates

    with RunRecord(shards[0]) as first, RunRecord(shards[1]) as second:
        assert first.conn.execute("SELECT COUNT(*) FROM candidates").fetchone()[0] > 1
        assert second.conn.execute("SELECT COUNT(*) FROM candidates").fetchone()[0] > 1
    assert content(merged) == content(whole)
