"""The search's weak seeds on the CPU interpreter (cakec run) against NumPy: kernels/gemm/seed_weak_hopper.cake
computes C = A B^T (bf16 output; several tile shapes and ring depths) and kernels/kmeans/assign_seed_naive.cake
the k-means labels."""

import os
import subprocess

import pytest

np = pytest.importorskip("numpy")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bf16(x):
    """float32 rounded to the nearest bf16 (ties to even), as float32."""
    bits = x.astype(np.float32).view(np.uint32)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return bits.view(np.float32)


def run(cakec, folder, source, defines, inputs, outputs):
    args = [cakec, "run", os.path.join(REPO, source)]
    for name, value in defines.items():
        args += ["-D", "%s=%s" % (name, value)]
    paths = {}
    for name, array in inputs.items():
        paths[name] = str(folder / (name + ".npy"))
        np.save(paths[name], array)
    outs = {name: str(folder / (name + ".out.npy")) for name in outputs}
    args += ["--inputs", ",".join("%s=%s" % item for item in paths.items()),
             "--outputs", ",".join("%s=%s" % item for item in outs.items())]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return {name: np.load(path) for name, path in outs.items()}


@pytest.mark.parametrize("defines", [{}, {"S": 3}, {"BM": 64, "BN": 64}, {"BN": 256, "S": 4}])
def test_weak_gemm_seed(cakec_only, tmp_path, defines):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((128, 320)).astype(np.float32)
    b = rng.standard_normal((256, 320)).astype(np.float32)
    c = run(cakec_only, tmp_path, "kernels/gemm/seed_weak_hopper.cake", defines, {"A": a, "B": b}, ["C"])["C"]
    reference = bf16(a) @ bf16(b).T
    assert np.linalg.norm(c.astype(np.float32) - reference) / np.linalg.norm(reference) < 4e-3


def test_naive_kmeans_seed(cakec_only, tmp_path):
    rng = np.random.default_rng(0)
    x = bf16(rng.standard_normal((2, 37, 16)).astype(np.float32))
    c = bf16(rng.standard_normal((2, 10, 16)).astype(np.float32))
    norms = np.full((2, 16), np.inf, np.float32)
    norms[:, :10] = (c * c).sum(-1)
    out = run(cakec_only, tmp_path, "kernels/kmeans/assign_seed_naive.cake", {"HD": 16, "TPB": 32},
              {"X": x, "C": c, "CN": norms}, ["L", "MinD"])
    distance = norms[:, None, :10] - 2 * np.einsum("bnd,bkd->bnk", x, c)
    assert (out["L"] == distance.argmin(-1)).all()
    assert np.allclose(out["MinD"], distance.min(-1), rtol=1e-4, atol=1e-4)
