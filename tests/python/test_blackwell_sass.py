"""The Blackwell samples (sm_100a, tensor memory + tcgen05) verify, assemble, and their SASS has the expected
tensor-core and tensor-memory instructions and no local-memory traffic: read back with nvdisasm
($CAKE_NVDISASM: PyPI's nvidia-cuda-nvdisasm, installed by utils/pytest.sh).  No Blackwell GPU ran them."""

import os
import re
import subprocess

import pytest

from test_lineinfo import REPO, nvdisasm

# opcode (the mnemonic before the first '.') -> why the sample needs it
EXPECTED = {
    "UTCHMMA": "tcgen05.mma kind::f16",
    "UTCBAR": "tcgen05.commit",
    "LDTM": "tcgen05.ld",
    "UTMALDG": "tma.load",
    "SYNCS": "mbarrier waits / arrivals",
}
LOCAL = re.compile(r"\b(LDL|STL)\b")


def sass_opcodes(cakec, tmp_path, sample):
    src = os.path.join(REPO, "samples", sample + ".cake")
    verify = subprocess.run([cakec, src, "--verify-only"], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    cubin = tmp_path / (sample + ".cubin")
    run = subprocess.run([cakec, src, "-o", str(cubin)], capture_output=True, text=True)
    if run.returncode == 3:
        pytest.skip("no ptxas: " + run.stderr.strip())
    assert run.returncode == 0, run.stderr
    text = subprocess.run([nvdisasm(), str(cubin)], capture_output=True, text=True, check=True).stdout
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", text, re.M)
    return set(ops), text


@pytest.mark.parametrize("sample", ["blackwell_gemm", "blackwell_kmeans_assign"])
def test_blackwell_sample_sass(cakec, tmp_path, sample):
    ops, text = sass_opcodes(cakec, tmp_path, sample)
    missing = {op: why for op, why in EXPECTED.items() if op not in ops}
    assert not missing, "missing SASS opcodes: %s" % missing
    assert not LOCAL.search(text), "local-memory traffic (LDL/STL) in " + sample
    assert "HGMMA" not in ops   # no Hopper path on sm_100a


def test_blackwell_manifest_needs_nothing_for_tmem(cakec, tmp_path):
    """The launch manifest of a tensor-memory kernel: arch sm_100a, the dynamic shared memory (the TMEM address
    slot included), no cluster; tensor memory itself needs nothing from the host (no parameter, no attribute)."""
    import json
    src = os.path.join(REPO, "samples", "blackwell_gemm.cake")
    cubin = tmp_path / "g.cubin"
    run = subprocess.run([cakec, src, "-o", str(cubin)], capture_output=True, text=True)
    if run.returncode == 3:
        pytest.skip("no ptxas: " + run.stderr.strip())
    assert run.returncode == 0, run.stderr
    manifest = json.loads((tmp_path / "g.cubin.json").read_text())
    assert manifest["arch"] == "sm_100a"
    kernel = manifest["kernels"][0]
    # 4 stages x (128 + 256) x 64 bf16 = 196608 bytes of tiles, then the 4-byte slot and 12 mbarriers.
    assert kernel["launch"]["dynamic_smem"] >= 196608 + 4 + 12 * 8
    assert "cluster" not in kernel["launch"]
    assert [a["kind"] for a in kernel["abi"]].count("tensormap") == 2
    assert not any("tmem" in json.dumps(a) for a in kernel["abi"])
