"""bench/launch_overhead.py runs (CPU mode: fake CUDA driver; the stand-in torch tensors of
runtime/testing/fake_torch.py when the tests' _cake_fake_dlpack extension is built, else DevicePtr arguments) and
writes its report, with the launch path each cakeir method took, how the native path read the tensors, and the
previous path (an earlier build of the extension behind the Python Kernel.__call__) when one is given."""

import json
import os
import subprocess
import sys

import pytest

from cakeir import _native

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("previous", [False, True])
def test_launch_overhead_cpu_run(cakec, fake_path, lib, tmp_path, previous):
    cubin = str(tmp_path / "vector_add.cubin")
    subprocess.run([cakec, os.path.join(REPO, "samples", "vector_add.cake"), "--arch", "sm_90", "-o", cubin],
                   check=True)
    extension = os.path.join(os.path.dirname(lib.cake_library_path), _native.MODULE_FILE)
    if previous and not os.path.isfile(extension):
        pytest.skip("%s is not built" % extension)
    out = tmp_path / "out"
    command = [sys.executable, os.path.join(REPO, "bench", "launch_overhead.py"), "--out", str(out), "--cubin", cubin,
               "--fake-driver", fake_path, "--calls", "50", "--repeats", "2",
               "--previous-extension", extension if previous else str(tmp_path / "absent.so")]
    if os.environ.get("CAKE_FAKE_DLPACK_MODULE"):
        command += ["--fake-dlpack", os.environ["CAKE_FAKE_DLPACK_MODULE"]]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0, result.stdout.decode()
    report = json.loads((out / "launch_overhead.json").read_text())
    methods = report["methods"]
    assert report["smoke"] is True
    assert set(methods) == {"cakeir", "cakeir-python", "cakeir-general"} | ({"cakeir-previous"} if previous else set())
    assert all(row["median_us"] > 0 for row in methods.values())
    # Each method reports the path that took its calls: the native one when the extension loads.
    native = report["launch_path"].startswith("native")
    assert methods["cakeir"]["path"] == ("native" if native else "prepared")
    assert methods["cakeir-python"]["path"] == "prepared"
    assert methods["cakeir-general"]["path"] == "general"
    if previous:
        assert methods["cakeir-previous"]["path"] == "native"
    if native and report["arguments"].startswith("stand-in torch tensors"):
        assert methods["cakeir"]["tensor_reads"] == "exchange"
    assert "no timing claims" in (out / "launch_overhead.md").read_text()
