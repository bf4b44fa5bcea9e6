"""cakeir.torch: kernels as torch.library custom operators, traced by torch.compile(fullgraph=True).

Needs torch (CPU is enough: CPU tensors run the registered CPU reference, fake tensors the manifest-derived
fake implementation); skipped when torch cannot be imported.  torch is not installed by the suite (the PyPI
wheel for Linux is the CUDA build, several GiB); put one on PYTHONPATH to run these tests."""

import os

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable (put a torch install on PYTHONPATH to run "
                                            "the torch.library / torch.compile tests)")

import cakeir  # noqa: E402
import cakeir.torch  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VECTOR_ADD = os.path.join(REPO, "samples", "vector_add.cake")


def reference_add(a, b, c):
    c.copy_((a.float() + b.float()).to(c.dtype))


@pytest.fixture
def vector_add(cakec, tmp_path):
    return cakeir.compile(VECTOR_ADD, arch="sm_90", cache_dir=tmp_path, cakec=cakec).vector_add


READ_ONLY = """{"format": "cake-manifest", "version": 1, "arch": "sm_90", "cubin": "k.cubin", "kernels": [{
  "name": "scale", "entry": "scale__4",
  "params": [{"name": "X", "kind": "tensor", "dtype": "f32", "dims": ["n"], "access": "read"},
             {"name": "Y", "kind": "tensor", "dtype": "f32", "dims": ["n"], "access": "write"},
             {"name": "a", "kind": "scalar", "dtype": "f32"}, {"name": "flip", "kind": "scalar", "dtype": "pred"}],
  "shape_vars": [{"name": "n", "from": {"param": 0, "dim": 0}}],
  "launch": {"grid": ["cdiv(n, 128)"], "block": [128]},
  "abi": [{"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1}, {"kind": "shape", "var": "n"},
          {"kind": "scalar", "param": 2}, {"kind": "scalar", "param": 3}]}]}"""


def test_schema_from_the_manifest(vector_add):
    # cakec's manifests do not say which tensors a kernel only reads, so every tensor may be written ...
    assert vector_add.param_writes == [True, True, True]
    assert cakeir.torch.schema(vector_add) == "(Tensor(a!) A, Tensor(b!) B, Tensor(c!) C) -> ()"
    # ... unless outputs= names the destinations.
    assert cakeir.torch.schema(vector_add, outputs=["C"]) == "(Tensor A, Tensor B, Tensor(a!) C) -> ()"
    with pytest.raises(cakeir.CakeArgumentError, match="not a tensor parameter"):
        cakeir.torch.schema(vector_add, outputs=["D"])
    scale = cakeir.load_data(READ_ONLY).scale  # a manifest with "access"
    assert cakeir.torch.schema(scale) == "(Tensor X, Tensor(a!) Y, float a, bool flip) -> ()"
    with pytest.raises(cakeir.CakeArgumentError, match="only reads X"):
        cakeir.torch.schema(scale, outputs=["X"])


def test_custom_op_eager_fake_and_compiled(vector_add, fake_cuda):
    op = cakeir.torch.register(vector_add, name="cakeir_test::vector_add", outputs=["C"], reference=reference_add)
    assert op is torch.ops.cakeir_test.vector_add
    assert "Tensor(a!) C" in str(op.default._schema)
    with pytest.raises(cakeir.CakeArgumentError, match="already registered"):
        cakeir.torch.register(vector_add, name="cakeir_test::vector_add")
    a = torch.randn(5000).to(torch.bfloat16)
    b = torch.randn(5000).to(torch.bfloat16)
    c = torch.empty(5000, dtype=torch.bfloat16)
    assert op(a, b, c) is None
    expected = (a.float() + b.float()).to(torch.bfloat16)
    assert torch.equal(c, expected)

    # torch.library's own consistency checks (schema, fake tensor, functionalization) on CPU tensors.
    torch.library.opcheck(op, (a, b, c))

    # Fake tensors: the fake implementation checks shapes against the manifest and launches nothing.
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fa, fb, fc = (torch.empty(4096, dtype=torch.bfloat16, device="cuda") for _ in range(3))
        assert op(fa, fb, fc) is None
        with pytest.raises(cakeir.CakeArgumentError, match="dim 0 is 4000 but the kernel expects `N` = 4096"):
            op(fa, fb, torch.empty(4000, dtype=torch.bfloat16, device="cuda"))
        with pytest.raises(cakeir.CakeArgumentError, match="expected a bf16 tensor, got f32"):
            op(fa, fb, torch.empty(4096, dtype=torch.float32, device="cuda"))
    assert fake_cuda.launches == 0

    # torch.compile(fullgraph=True) traces through the operator: one graph that calls it.
    graphs = []

    def recording_backend(gm, example_inputs):
        graphs.append(gm)
        return torch._dynamo.lookup_backend("aot_eager")(gm, example_inputs)

    def f(x, y, out):
        op(x * 2, y, out)
        return out + 1

    compiled = torch.compile(f, fullgraph=True, backend=recording_backend)
    out = torch.empty(5000, dtype=torch.bfloat16)
    result = compiled(a, b, out)
    assert len(graphs) == 1 and "cakeir_test.vector_add" in str(graphs[0].graph)
    expected = ((a * 2).float() + b.float()).to(torch.bfloat16)
    assert torch.equal(out, expected) and torch.equal(result, expected + 1)


def test_cpu_tensors_without_a_reference_are_refused(vector_add):
    op = cakeir.torch.register(vector_add, name="cakeir_test::vector_add_noref", outputs=["C"])
    x = torch.zeros(64, dtype=torch.bfloat16)
    with pytest.raises(cakeir.CakeArgumentError, match="tensor is on cpu; CAKE kernels need CUDA tensors"):
        op(x, x, torch.empty_like(x))
