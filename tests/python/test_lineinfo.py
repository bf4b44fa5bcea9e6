"""cakec -lineinfo: the cubin carries each instruction's .cake line (ptxas -lineinfo over the PTX's .file/.loc),
read back with nvdisasm -g ($CAKE_NVDISASM: PyPI's nvidia-cuda-nvdisasm, installed by utils/pytest.sh).
Without -lineinfo the cubin names no .cake file."""

import glob
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nvdisasm():
    path = os.environ.get("CAKE_NVDISASM")
    if path:
        return path
    for root in sys.path:
        for path in sorted(glob.glob(os.path.join(root, "nvidia", "cu*", "bin", "nvdisasm"))):
            if os.access(path, os.X_OK):
                return path
    pytest.skip("nvdisasm is not installed (pip install nvidia-cuda-nvdisasm)")


def compile_cubin(cakec, out, *flags):
    sample = os.path.join(REPO, "samples", "hopper_gemm.cake")
    run = subprocess.run([cakec, sample, "-o", str(out), *flags], capture_output=True, text=True)
    if run.returncode == 3:
        pytest.skip("no ptxas: " + run.stderr.strip())
    assert run.returncode == 0, run.stderr
    return out


def lines_named(disasm, cubin):
    text = subprocess.run([disasm, "-g", str(cubin)], capture_output=True, text=True, check=True).stdout
    return [int(m) for m in re.findall(r'File ".*hopper_gemm\.cake", line (\d+)', text)]


def test_lineinfo_maps_sass_to_cake_lines(cakec, tmp_path):
    disasm = nvdisasm()
    with_lines = lines_named(disasm, compile_cubin(cakec, tmp_path / "with.cubin", "-lineinfo"))
    assert len(set(with_lines)) >= 10   # many distinct statements of the kernel
    source_lines = open(os.path.join(REPO, "samples", "hopper_gemm.cake")).read().count("\n") + 1
    assert all(1 <= n <= source_lines for n in with_lines)
    assert lines_named(disasm, compile_cubin(cakec, tmp_path / "without.cubin")) == []
