"""pytest fixtures for the runtime's Python tests (tests/python/test_runtime.py).

    lib        the loaded libcake_runtime.so: $CAKE_RUNTIME_LIB, else found in build*/lib; when
               CAKE_RUNTIME_LIB is set a library that does not load is a failure, otherwise the test is skipped
    fake_path  the fake CUDA driver library ($CAKE_FAKE_CUDA_LIB); tests that need it are skipped without it
    cakec      the compiler ($CAKE_CAKEC); tests that need it are skipped without it
ctest sets all three (runtime/CMakeLists.txt, through utils/pytest.sh)."""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import cake  # noqa: E402


@pytest.fixture
def lib():
    try:
        cake.library_path()
    except OSError as error:
        if os.environ.get("CAKE_RUNTIME_LIB"):
            pytest.fail("CAKE_RUNTIME_LIB is set but the library does not load: %s" % error)
        pytest.skip("no libcake_runtime.so: %s" % error)
    return cake._lib.load_library()


@pytest.fixture
def fake_path(lib):
    path = os.environ.get("CAKE_FAKE_CUDA_LIB")
    if not path:
        pytest.skip("CAKE_FAKE_CUDA_LIB is not set")
    return path


@pytest.fixture
def cakec(lib):
    path = os.environ.get("CAKE_CAKEC")
    if not path:
        pytest.skip("CAKE_CAKEC is not set")
    if not os.path.isfile(path):
        pytest.skip("%s is not built" % path)
    return path
