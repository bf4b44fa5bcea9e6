"""bench/launch_overhead.py runs (CPU smoke mode: fake CUDA driver, DevicePtr arguments) and writes its report,
with the launch path each cakeir method took."""

import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_launch_overhead_smoke(cakec, fake_path, tmp_path):
    cubin = str(tmp_path / "vector_add.cubin")
    subprocess.run([cakec, os.path.join(REPO, "samples", "vector_add.cake"), "--arch", "sm_90", "-o", cubin],
                   check=True)
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, os.path.join(REPO, "bench", "launch_overhead.py"), "--out", str(out),
                             "--cubin", cubin, "--fake-driver", fake_path, "--calls", "50", "--repeats", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0, result.stdout.decode()
    report = json.loads((out / "launch_overhead.json").read_text())
    assert report["smoke"] is True and set(report["methods"]) == {"cakeir", "cakeir-python", "cakeir-general"}
    assert all(row["median_us"] > 0 for row in report["methods"].values())
    # Each method reports the path that took its calls: the native one when the extension loads.
    native = report["launch_path"].startswith("native")
    assert report["methods"]["cakeir"]["path"] == ("native" if native else "prepared")
    assert report["methods"]["cakeir-python"]["path"] == "prepared"
    assert report["methods"]["cakeir-general"]["path"] == "general"
    assert "no timing claims" in (out / "launch_overhead.md").read_text()
