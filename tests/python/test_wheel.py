"""`pip install .` into a fresh virtual environment, then use the installed package from outside the source tree:
compile a sample with the packaged cakec, launch it through the fake CUDA driver with the packaged
libcake_runtime (and again through the packaged native launch path), hit the compile cache, run `cakec` and `python -m cakeir`.

Slow (pip builds cakec and the runtime with CMake): it runs when CAKE_WHEEL_TEST=1, which the ctest test
python/wheel sets (runtime/CMakeLists.txt).  The CMake build folder is <repo>/build-wheel (kept, so a second
run is incremental); ccache is used when it is installed; CAKE_WHEEL_CXX / CAKE_WHEEL_BUILD_TYPE / CAKE_WERROR
choose the compiler, build type and -Werror (ctest passes those of the build it belongs to, so that ccache can
serve that build's objects).
Needs PyPI for the build backend (scikit-build-core)."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(os.environ.get("CAKE_WHEEL_TEST") != "1",
                                reason="set CAKE_WHEEL_TEST=1 to build and test the wheel (ctest python/wheel)")

USE = textwrap.dedent(r"""
    import ctypes, os, sys
    import cakeir
    from cakeir import _tools
    package = os.path.dirname(cakeir.__file__)
    assert package.startswith(sys.prefix), (package, sys.prefix)
    assert os.path.isfile(os.path.join(package, "py.typed"))
    assert cakeir.library_path() == os.path.join(package, "lib", "libcake_runtime.so"), cakeir.library_path()
    assert _tools.find_cakec() == os.path.join(package, "bin", "cakec"), _tools.find_cakec()
    fake = ctypes.CDLL(os.environ["CAKE_LIBCUDA"])
    class State(ctypes.Structure):  # the prefix of cake_fake_cuda_state (runtime/testing/FakeCuda.h)
        _fields_ = [("ints", ctypes.c_int * 10), ("name", ctypes.c_char * 256), ("attributes", ctypes.c_int * 3),
                    ("launches", ctypes.c_int)]
    fake.cake_fake_cuda_state_get.restype = ctypes.POINTER(State)
    state = fake.cake_fake_cuda_state_get().contents
    first = cakeir.compile(sys.argv[1], arch="sm_90", cache_dir=sys.argv[2])
    second = cakeir.compile(sys.argv[1], arch="sm_90", cache_dir=sys.argv[2])
    assert not first.from_cache and second.from_cache and first.cache_entry == second.cache_entry
    n = 10000
    second(cakeir.DevicePtr(0x7f0000000000, (n,), "bf16"), cakeir.DevicePtr(0x7f0000100000, (n,), "bf16"),
           cakeir.DevicePtr(0x7f0000200000, (n,), "bf16"))
    assert state.launches == 1 and state.name == b"vector_add", (state.launches, state.name)
    # the wheel's native launch path (cakeir/lib/_prepared_call.abi3.so) takes the next call
    assert cakeir.launch_path() == "native", cakeir.launch_path_reason()
    assert cakeir.launch_path_reason() == "loaded from " + os.path.join(package, "lib", "_prepared_call.abi3.so")
    second(cakeir.DevicePtr(0x7f0000000000, (n,), "bf16"), cakeir.DevicePtr(0x7f0000100000, (n,), "bf16"),
           cakeir.DevicePtr(0x7f0000200000, (n,), "bf16"))
    assert state.launches == 2 and second.vector_add.launch_counts()["native"] == 1
    from cakeir.lsp.reference import Reference   # the language server's hover text: the installed reference
    reference = Reference.load()
    assert reference.path == os.path.join(package, "share", "cake", "docs", "language.md"), reference.path
    assert "signal(MBAR[stage])" in reference.hover("tma.load")
    print("wheel ok", package)
""")


def test_pip_install_wheel(tmp_path):
    fake = os.environ.get("CAKE_FAKE_CUDA_LIB")
    if not fake:
        pytest.skip("CAKE_FAKE_CUDA_LIB is not set")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CAKE_RUNTIME_LIB", "CAKE_CAKEC", "PYTHONPATH", "LD_PRELOAD", "ASAN_OPTIONS")}
    if shutil.which("ccache") and "CMAKE_CXX_COMPILER_LAUNCHER" not in env:
        env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"
        env.setdefault("CCACHE_BASEDIR", REPO)   # build/ and build-wheel/ see the same relative paths
        env.setdefault("CCACHE_NOHASHDIR", "1")
    if os.environ.get("CAKE_WHEEL_CXX"):
        env["CXX"] = os.environ["CAKE_WHEEL_CXX"]
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", os.environ.get("CAKE_JOBS", str(os.cpu_count() or 2)))
    command = [python, "-m", "pip", "install", "--disable-pip-version-check", REPO,
               "-C", "build-dir=" + os.path.join(REPO, "build-wheel"),
               "-C", "cmake.build-type=" + os.environ.get("CAKE_WHEEL_BUILD_TYPE", "Release"),
               "-C", "cmake.define.CAKE_WERROR=" + os.environ.get("CAKE_WERROR", "OFF")]
    result = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    log = result.stdout.decode("utf-8", "replace")
    assert result.returncode == 0, "pip install failed:\n" + log[-6000:]

    outside = tmp_path / "elsewhere"  # not the source tree: only the installed package can be imported
    outside.mkdir()
    env_use = dict(env, CAKE_LIBCUDA=fake)
    script = outside / "use.py"
    script.write_text(USE)
    result = subprocess.run([python, str(script), os.path.join(REPO, "samples", "vector_add.cake"),
                             str(tmp_path / "cache")], cwd=str(outside), env=env_use, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0 and b"wheel ok" in result.stdout, result.stdout.decode("utf-8", "replace")
    assert os.path.isfile(str(venv / "bin" / "cake-lsp"))   # the language server's console script
    for argv in ([str(venv / "bin" / "cakec"), "--version"], [python, "-m", "cakeir", "--version"]):
        result = subprocess.run(argv, cwd=str(outside), env=env_use, stdout=subprocess.PIPE, check=False)
        assert result.returncode == 0 and result.stdout.startswith(b"cakec "), (argv, result.stdout)
    result = subprocess.run([str(venv / "bin" / "cakec"), os.path.join(REPO, "samples", "hopper_gemm.cake"),
                             "--estimate", "--shape", "M=4096,N=4096,K=4096"], cwd=str(outside), env=env_use,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0, result.stdout.decode("utf-8", "replace")  # machine files from the package
