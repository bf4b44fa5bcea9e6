"""pytest fixtures for the Python tests of the package cakeir (tests/python/test_*.py).

    lib        the loaded libcake_runtime.so: $CAKE_RUNTIME_LIB, else found in build*/lib; when
               CAKE_RUNTIME_LIB is set a library that does not load is a failure, otherwise the test is skipped
    fake_path  the fake CUDA driver library ($CAKE_FAKE_CUDA_LIB); tests that need it are skipped without it
    fake_cuda  the fake driver made the runtime's driver ($CAKE_LIBCUDA), reset: its FakeCudaState
    cakec      the compiler ($CAKE_CAKEC; with LD_PRELOAD set, a wrapper that runs it without); tests that
               need it are skipped without it
    cakec_only the compiler without the runtime library: $CAKE_CAKEC as `cakec` gives it, else the source
               tree's build*/cakec (as cakeir.compile finds it); skipped when there is none
ctest sets the environment (runtime/CMakeLists.txt, through utils/pytest.sh)."""

import ctypes
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import cakeir as cake  # noqa: E402
from cakeir import _tools as cake_tools  # noqa: E402


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


@pytest.fixture(scope="session")
def _cakec_path(tmp_path_factory):
    path = os.environ.get("CAKE_CAKEC")
    if not path or not os.path.isfile(path):
        return path
    if not os.environ.get("LD_PRELOAD"):
        return path
    # The sanitizer build preloads ASan into python (runtime/CMakeLists.txt); cakec carries its own, and the
    # ptxas it runs must not get it (ASan's address-space reservation makes ptxas abort under cakec's limit).
    wrapper = tmp_path_factory.mktemp("cakec") / "cakec"
    wrapper.write_text("#!/bin/sh\nunset LD_PRELOAD\nexec '%s' \"$@\"\n" % path)
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.fixture
def cakec(lib, _cakec_path):
    path = _cakec_path
    if not path:
        pytest.skip("CAKE_CAKEC is not set")
    if not os.path.isfile(path):
        pytest.skip("%s is not built" % path)
    return path


@pytest.fixture
def cakec_only(_cakec_path):
    path = _cakec_path
    if not path:
        try:
            path = cake_tools.find_cakec(use_path=False)
        except FileNotFoundError as error:
            pytest.skip(str(error))
    if not os.path.isfile(path):
        pytest.skip("%s is not built" % path)
    return path


class FakeCudaState(ctypes.Structure):
    """cake_fake_cuda_state (runtime/testing/FakeCuda.h), field for field."""
    _fields_ = [
        ("sm_count", ctypes.c_int), ("cc_major", ctypes.c_int), ("cc_minor", ctypes.c_int),
        ("max_smem_optin", ctypes.c_int), ("fail_module_load", ctypes.c_int), ("no_context", ctypes.c_int),
        ("init_calls", ctypes.c_int), ("module_loads", ctypes.c_int), ("module_unloads", ctypes.c_int),
        ("primary_ctx_retains", ctypes.c_int), ("last_function_name", ctypes.c_char * 256),
        ("set_attribute_calls", ctypes.c_int), ("last_attribute", ctypes.c_int),
        ("last_attribute_value", ctypes.c_int), ("launches", ctypes.c_int), ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3), ("cluster", ctypes.c_uint * 3), ("shared_mem_bytes", ctypes.c_uint),
        ("stream", ctypes.c_void_p), ("num_attrs", ctypes.c_uint), ("num_params", ctypes.c_uint),
        ("params", (ctypes.c_ubyte * 128) * 16), ("tensor_map_encodes", ctypes.c_int),
        ("tm_data_type", ctypes.c_int), ("tm_rank", ctypes.c_int), ("tm_swizzle", ctypes.c_int),
        ("tm_interleave", ctypes.c_int), ("tm_l2", ctypes.c_int), ("tm_oob", ctypes.c_int),
        ("tm_address", ctypes.c_uint64), ("tm_dims", ctypes.c_uint64 * 5), ("tm_strides", ctypes.c_uint64 * 4),
        ("tm_box", ctypes.c_uint32 * 5), ("tm_elem_strides", ctypes.c_uint32 * 5),
        ("max_smem_per_sm", ctypes.c_int), ("occupancy_calls", ctypes.c_int), ("occupancy_block_size", ctypes.c_int),
        ("occupancy_dynamic_smem", ctypes.c_uint64),
    ]


@pytest.fixture
def fake_cuda(fake_path):
    """The fake driver, reset, made the runtime's driver ($CAKE_LIBCUDA); its FakeCudaState."""
    os.environ["CAKE_LIBCUDA"] = fake_path
    fake = ctypes.CDLL(fake_path)  # the same handle the runtime dlopens
    fake.cake_fake_cuda_reset()
    fake.cake_fake_cuda_state_get.restype = ctypes.POINTER(FakeCudaState)
    cake.driver_check()
    return fake.cake_fake_cuda_state_get().contents
