"""cakeir.compile and its on-disk cache (runtime/python/cakeir/_compile.py), `python -m cakeir`.

cakec runs through a wrapper script that counts its invocations, so a test can tell whether a compile ran
cakec at all; modules are launched through the fake CUDA driver."""

import multiprocessing
import os
import stat
import subprocess
import sys

import pytest

import cakeir
from cakeir import DevicePtr

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTOR_ADD = os.path.join(REPO, "samples", "vector_add.cake")
A, B, C = 0x7F0000000000, 0x7F0000100000, 0x7F0000200000

AXPY = """target sm_90;
kernel axpy<T = 128>(X: f32[N], Y: f32[N], a: f32)
  grid(cdiv(N, T)) threads(T)
{
  let i = i32(block.x) * T + i32(tid.x);
  if i < N {
    Y[i] = a * X[i] + Y[i];
  }
}
"""


def counting_cakec(folder, cakec, delay=0.0):
    """A cakec wrapper that appends one line per run (its arguments) to folder/calls and runs cakec."""
    wrapper = os.path.join(str(folder), "cakec-counted")
    calls = os.path.join(str(folder), "calls")
    with open(wrapper, "w") as handle:
        handle.write("#!/bin/sh\necho \"$*\" >> '%s'\n%sexec '%s' \"$@\"\n"
                     % (calls, "sleep %s\n" % delay if delay else "", cakec))
    os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
    return wrapper, calls


def count(calls, what=""):
    if not os.path.exists(calls):
        return 0
    with open(calls) as handle:
        return sum(1 for line in handle if what in line)


def test_cache_dir_defaults(monkeypatch, tmp_path):
    monkeypatch.delenv("CAKEIR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cakeir.default_cache_dir() == str(tmp_path / "xdg" / "cakeir")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # not absolute: ignored, as the XDG spec says
    assert cakeir.default_cache_dir() == os.path.join(os.path.expanduser("~"), ".cache", "cakeir")
    monkeypatch.setenv("CAKEIR_CACHE_DIR", str(tmp_path / "mine"))
    assert cakeir.default_cache_dir() == str(tmp_path / "mine")


def test_compile_hits_the_cache_without_running_cakec(cakec, fake_cuda, tmp_path):
    wrapper, calls = counting_cakec(tmp_path, cakec)
    cache = tmp_path / "cache"
    first = cakeir.compile(VECTOR_ADD, arch="sm_90", cache_dir=cache, cakec=wrapper)
    assert not first.from_cache and first.cache_entry.startswith(str(cache))
    assert first.arch == "sm_90" and list(first.kernels) == ["vector_add"]
    assert count(calls, " -o ") == 1 and count(calls, "--version") == 1
    before = count(calls)
    second = cakeir.compile(VECTOR_ADD, arch="sm_90", cache_dir=cache, cakec=wrapper)
    assert second.from_cache and second.cache_entry == first.cache_entry
    assert count(calls) == before, "a cache hit ran cakec"
    # A fresh process hits the same entry, still without running cakec (the tool identities are memoised).
    script = ("import sys; sys.path.insert(0, %r); import cakeir; m = cakeir.compile(%r, arch='sm_90', "
              "cache_dir=%r, cakec=%r); print(m.from_cache, m.cache_entry)"
              % (os.path.join(REPO, "runtime", "python"), VECTOR_ADD, str(cache), wrapper))
    out = subprocess.run([sys.executable, "-c", script], check=True, stdout=subprocess.PIPE).stdout.decode()
    assert out.split() == ["True", first.cache_entry] and count(calls) == before
    # Each part of the key: defines, arch, the source.
    third = cakeir.compile(VECTOR_ADD, arch="sm_90", defines={"THREADS": 128}, cache_dir=cache, cakec=wrapper)
    assert not third.from_cache and third.cache_entry != first.cache_entry and count(calls, " -o ") == 2
    assert "-D THREADS=128" in open(calls).read()
    assert not cakeir.compile(VECTOR_ADD, arch="sm_90a", cache_dir=cache, cakec=wrapper).from_cache
    with open(VECTOR_ADD) as handle:
        text = handle.read()
    assert not cakeir.compile(text + "\n", arch="sm_90", cache_dir=cache, cakec=wrapper).from_cache
    assert count(calls, " -o ") == 4 and count(calls, "--version") == 1
    # The compiled module launches (fake driver): THREADS=128 gives cdiv(5000, 1024) blocks of 128 threads.
    third(DevicePtr(A, (5000,), "bf16"), DevicePtr(B, (5000,), "bf16"), DevicePtr(C, (5000,), "bf16"))
    assert fake_cuda.launches == 1 and list(fake_cuda.grid) == [5, 1, 1] and list(fake_cuda.block) == [128, 1, 1]
    # A damaged entry is compiled again.
    os.unlink(os.path.join(first.cache_entry, "kernel.cubin"))
    with open(os.path.join(first.cache_entry, "kernel.cubin"), "wb") as handle:
        handle.write(b"not a cubin")
    again = cakeir.compile(VECTOR_ADD, arch="sm_90", cache_dir=cache, cakec=wrapper)
    assert not again.from_cache and count(calls, " -o ") == 5
    assert os.listdir(cache / "tmp") == []


def test_compile_source_text_and_errors(cakec, tmp_path):
    module = cakeir.compile(AXPY, cache_dir=tmp_path, cakec=cakec, name="axpy")
    assert module.axpy.signature() == "axpy(X: f32[1], Y: f32[1], a: f32)"
    uncached = cakeir.compile(AXPY, cache=False, cakec=cakec)
    assert uncached.cache_entry is None and not uncached.from_cache
    entries = sorted(os.listdir(tmp_path))
    with pytest.raises(cakeir.CakeCompileError) as info:
        cakeir.compile(AXPY.replace("Y[i] = a * X[i]", "Y[i] = a * Z[i]"), cache_dir=tmp_path, cakec=cakec,
                       name="broken")
    assert "broken.cake:" in info.value.diagnostics and "Z" in info.value.diagnostics
    assert info.value.returncode != 0 and info.value.command[0] == cakec
    assert sorted(os.listdir(tmp_path)) == entries and os.listdir(tmp_path / "tmp") == []  # failures: not cached
    with pytest.raises(FileNotFoundError):
        cakeir.compile("no/such/file.cake", cache_dir=tmp_path, cakec=cakec)
    with pytest.raises(cakeir.CakeArgumentError, match="define name"):
        cakeir.compile(AXPY, defines={"T x": 1}, cache_dir=tmp_path, cakec=cakec)
    with pytest.raises(cakeir.CakeArgumentError, match="expected an int"):
        cakeir.compile(AXPY, defines={"T": 1.5}, cache_dir=tmp_path, cakec=cakec)
    with pytest.raises(cakeir.CakeArgumentError, match="arch"):
        cakeir.compile(AXPY, arch="hopper", cache_dir=tmp_path, cakec=cakec)


def _compile_in_child(arguments):
    source, cache, wrapper = arguments
    module = cakeir.compile(source, arch="sm_90", cache_dir=cache, cakec=wrapper)
    return module.from_cache, module.cache_entry, list(module.kernels)


def test_concurrent_processes_share_the_cache(cakec, tmp_path):
    # cakec sleeps first, so all four processes miss and compile at once; one rename wins.
    wrapper, calls = counting_cakec(tmp_path, cakec, delay=0.5)
    cache = str(tmp_path / "cache")
    context = multiprocessing.get_context("fork")
    with context.Pool(4) as pool:
        results = pool.map(_compile_in_child, [(VECTOR_ADD, cache, wrapper)] * 4)
    entries = {entry for _, entry, _ in results}
    assert len(entries) == 1 and all(kernels == ["vector_add"] for _, _, kernels in results)
    assert count(calls, " -o ") >= 2, "the processes did not compile concurrently"
    shards = [s for s in os.listdir(cache) if s not in ("tmp", "tools")]
    assert len(shards) == 1 and len(os.listdir(os.path.join(cache, shards[0]))) == 1
    assert os.listdir(os.path.join(cache, "tmp")) == []
    assert sorted(os.listdir(entries.pop())) == ["kernel.cubin", "kernel.cubin.json", "key.json"]
    assert _compile_in_child((VECTOR_ADD, cache, wrapper))[0] is True


def test_python_m_cakeir_runs_cakec(cakec):
    env = dict(os.environ, CAKE_CAKEC=cakec, PYTHONPATH=os.path.join(REPO, "runtime", "python"))
    out = subprocess.run([sys.executable, "-m", "cakeir", "--version"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, check=False)
    assert out.returncode == 0 and out.stdout.decode().startswith("cakec "), out.stdout
    out = subprocess.run([sys.executable, "-m", "cakeir", "--explain", "E0301"], env=env, stdout=subprocess.PIPE,
                         check=False)
    assert out.returncode == 0 and b"E0301" in out.stdout
