"""cakeir.load_library: a library built by `cakec library build` (tests/lit/library/Inputs/good.json: three
builds of rowscale.cake) loaded from Python - the variant picked by shape, the fallback for shapes outside
every guard, explain(), errors, and launches through the fake driver."""

import json
import os
import subprocess

import pytest

import cakeir as cake

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC = os.path.join(REPO, "tests", "lit", "library", "Inputs", "good.json")


def build_library(spec, tmp_path_factory, cakec_path):
    """`cakec library build SPEC` into a fresh folder; its path."""
    if not cakec_path or not os.path.isfile(cakec_path):
        pytest.skip("CAKE_CAKEC is not set or not built")
    out = tmp_path_factory.mktemp(os.path.splitext(os.path.basename(spec))[0])
    result = subprocess.run([cakec_path, "library", "build", spec, "-o", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return str(out)


@pytest.fixture(scope="module")
def built(tmp_path_factory, _cakec_path):
    return build_library(SPEC, tmp_path_factory, _cakec_path)


def test_dispatch_by_shape_and_fallback(lib, built):
    library = cake.load_library(built, arch="sm_80")
    assert library.name == "rowscale_lib"
    assert library.shape_vars == ["M", "N"]
    assert library.entries == [("N % 8 == 0 && M >= 4096", "v8"), ("N % 4 == 0", "v4"), ("true", "any")]
    assert library.variant_name(M=8192, N=64) == "v8"
    assert library.variant_name(M=100, N=64) == "v4"          # M too small for v8
    assert library.variant_name(M=8192, N=7) == "any"         # outside every guard: the fallback
    assert library.variant_name(M=1, N=1) == "any"
    assert library.select(M=100, N=12) is library.variants["v4"]
    assert library.entry(M=8192, N=7) == 2
    cubin = library.variant_cubin("v4")                        # the variant's cubin in the folder, with its manifest
    assert cubin == os.path.join(os.path.abspath(built), "v4.cubin")
    assert os.path.isfile(cubin) and os.path.isfile(cubin + ".json")
    assert library.ct_params("v4")["V"] == 4
    with pytest.raises(cake.CakeArgumentError, match="no value for shape variable N"):
        library.entry(M=3)
    with pytest.raises(cake.CakeArgumentError, match="has no shape variable K"):
        library.entry(M=3, N=4, K=5)


def test_explain(lib, built):
    library = cake.load_library(os.path.join(built, "library.json"), arch="sm_80")
    text = library.explain(M=8192, N=7)
    assert text == ("library rowscale_lib at M = 8192, N = 7 on compute capability 8.0:\n"
                    "  [0] v8: not taken: `N % 8 == 0` of the guard is false (N = 7)\n"
                    "  [1] v4: not taken: guard `N % 4 == 0` is false (N = 7)\n"
                    "  [2] any (fallback): chosen: the fallback accepts every shape (" + SPEC + ":13:18)\n")
    assert "[0] v8: chosen: guard `N % 8 == 0 && M >= 4096` holds (" in library.explain(M=4096, N=8)


def test_no_entry_for_the_target(lib, built):
    library = cake.load_library(built, arch="sm_90a")     # sm_80 cubins do not run on 9.0
    with pytest.raises(cake.CakeRequirementError, match="no entry of the dispatch table accepts M = 5, N = 8"):
        library.entry(M=5, N=8)
    assert "skipped: built for sm_80, which does not run on compute capability 9.0" in library.explain(M=5, N=8)


def test_launch_through_the_fake_driver(built, fake_cuda):
    fake_cuda.cc_major, fake_cuda.cc_minor = 8, 0
    library = cake.load_library(built)                    # the target comes from the device at the first call
    assert library.target == ""

    def call(m, n):
        x = cake.DevicePtr(0x7f0000000000, shape=(m, n), dtype="f32")
        y = cake.DevicePtr(0x7f0000100000, shape=(m, n), dtype="f32")
        library(x, y)
        return fake_cuda.block[0], fake_cuda.grid[0]

    assert call(8192, 64) == (128, 64)                    # v8: BS = 128
    assert library.target == "compute capability 8.0"
    assert call(100, 64) == (256, 1)                      # v4: BS = 256
    assert call(8192, 7) == (128, 64)                     # the fallback
    assert library.variant_name(M=8192, N=7) == "any"
    assert fake_cuda.launches == 3
    # Arguments by name work too; the chosen variant's own checks still apply.
    library(X=cake.DevicePtr(0x7f0000000000, shape=(64, 8), dtype="f32"),
            Y=cake.DevicePtr(0x7f0000100000, shape=(64, 8), dtype="f32"))
    assert fake_cuda.launches == 4
    with pytest.raises(cake.CakeArgumentError, match="Y"):
        library(cake.DevicePtr(0x7f0000000000, shape=(64, 8), dtype="f32"),
                cake.DevicePtr(0x7f0000100000, shape=(64, 9), dtype="f32"))
    with pytest.raises(cake.CakeArgumentError, match="no value for shape variable M"):
        library(0x7f0000000000, 0x7f0000100000)


def test_named_shape_variables_and_the_fast_path(lib, built):
    library = cake.load_library(built, arch="sm_80")
    x = cake.DevicePtr(0x7f0000000000, shape=(8192, 64), dtype="f32")
    y = cake.DevicePtr(0x7f0000100000, shape=(8192, 64), dtype="f32")
    assert library.dispatch(x, y) is library.variants["v8"]
    assert library.dispatch(X=x, Y=y) is library.variants["v8"]          # by name: the general path
    assert library.dispatch(x, cake.DevicePtr(0x7f0000100000, shape=(8192, 7), dtype="f32")) \
        is library.variants["v8"]                                        # the shape comes from X (param 0)
    with pytest.raises(cake.CakeArgumentError, match="must be an int"):
        library.entry(M=8192.0, N=64)


SPLIT_SPEC = os.path.join(REPO, "tests", "lit", "library", "Inputs", "split.json")


@pytest.fixture(scope="module")
def split_built(tmp_path_factory, _cakec_path):
    return build_library(SPLIT_SPEC, tmp_path_factory, _cakec_path)


def test_variant_of_two_kernels_with_a_workspace(lib, split_built, fake_cuda):
    from cakeir._dtypes import F32
    from cakeir.library import KernelSequence
    fake_cuda.cc_major, fake_cuda.cc_minor = 8, 0
    library = cake.load_library(split_built, arch="sm_80")
    split = library.variants["split"]
    assert isinstance(split, KernelSequence)
    assert [k.name for k in split.kernels] == ["rowsum_partial", "rowsum_finish"]
    assert split.param_names == library.param_names == ["X", "Y"]
    assert split.workspace_shapes((512, 8192)) == [((8, 512), F32)]   # W: f32[P = 8, M]
    x = cake.DevicePtr(0x7f0000000000, shape=(512, 8192), dtype="f32")
    y = cake.DevicePtr(0x7f0000100000, shape=(512,), dtype="f32")
    w = cake.DevicePtr(0x7f0000200000, shape=(8, 512), dtype="f32")
    library(x, y, workspace=[w])
    assert fake_cuda.launches == 2                                      # the partial sums, then their sum
    assert fake_cuda.last_function_name == b"rowsum_finish"
    assert tuple(fake_cuda.grid) == (4, 1, 1)                           # cdiv(M, 128) rows of blocks
    with pytest.raises(cake.CakeArgumentError, match="needs a workspace"):
        library(x, y)                                                   # no torch tensors to allocate it beside
    with pytest.raises(cake.CakeArgumentError, match="W"):             # a workspace of the wrong shape
        library(x, y, workspace=[cake.DevicePtr(0x7f0000200000, shape=(4, 512), dtype="f32")])
    small = cake.DevicePtr(0x7f0000000000, shape=(512, 64), dtype="f32")
    library(small, y)                                                   # the one-kernel fallback
    assert fake_cuda.last_function_name == b"rowsum"


def test_then_step_from_its_own_cubin(lib, split_built, fake_cuda):
    """A "then" step given as {"source", "kernel", "defines"} is a kernel of its own module: the loader finds it
    in the step's manifest, and the call launches the partial kernel, then it, with the workspace the step's
    defines size (P = 16)."""
    from cakeir._dtypes import F32
    fake_cuda.cc_major, fake_cuda.cc_minor = 8, 0
    library = cake.load_library(split_built, arch="sm_80")
    steps = library.variants["split_steps"]
    assert [k.name for k in steps.kernels] == ["rowsum_partial", "rowsum_finish"]
    assert steps.workspace_shapes((2048, 65536)) == [((16, 2048), F32)]      # W: f32[P = 16, M]
    x = cake.DevicePtr(0x7f0000000000, shape=(2048, 65536), dtype="f32")
    y = cake.DevicePtr(0x7f0000100000, shape=(2048,), dtype="f32")
    w = cake.DevicePtr(0x7f0000200000, shape=(16, 2048), dtype="f32")
    assert library.dispatch(x, y) is steps
    launches = fake_cuda.launches
    library(x, y, workspace=[w])
    assert fake_cuda.launches == launches + 2
    assert fake_cuda.last_function_name == b"rowsum_finish"


def test_then_step_manifest_outside_the_folder(split_built, tmp_path, fake_cuda):
    """A step's manifest is a file name in the library's folder, like a variant's."""
    import shutil
    folder = tmp_path / "lib"
    shutil.copytree(split_built, folder)
    doc = json.loads((folder / "library.json").read_text())
    for v in doc["variants"]:
        for step in v.get("then", []):
            if isinstance(step, dict):
                step["manifest"] = "../" + step["manifest"]
    (folder / "library.json").write_text(json.dumps(doc))
    with pytest.raises(cake.CakeError, match="not a file name in the library's folder"):
        cake.load_library(str(folder), arch="sm_80")


def test_workspace_through_the_c_api(lib, split_built, fake_cuda):
    """cake_library_workspace_bytes sizes the chosen variant's workspace; cake_library_launch refuses a variant
    that needs one, cake_library_launch_workspace launches every kernel with it."""
    import ctypes

    from cakeir._args import tensor_arg
    from cakeir._dtypes import F32
    from cakeir._lib import CakeArg, error_buffer
    fake_cuda.cc_major, fake_cuda.cc_minor = 8, 0
    library = cake.load_library(split_built, arch="sm_80")
    runtime, handle = library._lib, library._handle
    size = ctypes.c_size_t(99)
    err = error_buffer()

    def workspace_bytes(m, n):
        values = (ctypes.c_int64 * 2)(m, n)
        assert runtime.cake_library_workspace_bytes(handle, values, 2, ctypes.byref(size), err, len(err)) == 0
        return size.value

    assert workspace_bytes(512, 8192) == 8 * 512 * 4
    assert workspace_bytes(512, 64) == 0                                # the fallback needs none
    keep = []
    args = (CakeArg * 2)(tensor_arg(cake.DevicePtr(0x7f0000000000, shape=(512, 8192), dtype="f32"), "X", F32, keep),
                         tensor_arg(cake.DevicePtr(0x7f0000100000, shape=(512,), dtype="f32"), "Y", F32, keep))
    entry = ctypes.c_int(-2)
    status = runtime.cake_library_launch(handle, args, 2, None, ctypes.byref(entry), err, len(err))
    assert status != 0
    assert "variant split needs 16384 bytes of device workspace at M = 512, N = 8192, none was given" in \
        err.value.decode()
    launches = fake_cuda.launches
    assert runtime.cake_library_launch_workspace(handle, args, 2, None, 0x7f0000200000, 16384, ctypes.byref(entry),
                                                 err, len(err)) == 0, err.value
    assert entry.value == 0 and fake_cuda.launches == launches + 2
    status = runtime.cake_library_launch_workspace(handle, args, 2, None, 0x7f0000200000, 1024, ctypes.byref(entry),
                                                   err, len(err))
    assert status != 0 and "1024 were given" in err.value.decode()
