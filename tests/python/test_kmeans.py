"""cakeir.kmeans: the k-means / KNN operators' contracts through their CPU implementations (the float32 references
the GPU kernels are measured against: bench/kmeans_bench.py, bench/knn_bench.py), torch.compile(fullgraph=True)
and fake tensors through the custom operators, and the cubin lookup's errors.

Needs torch (CPU is enough); skipped when torch cannot be imported."""

import pytest

torch = pytest.importorskip("torch", reason="torch is not importable (put a torch install on PYTHONPATH to run "
                                            "the cakeir.kmeans tests)")

from cakeir import kmeans as km  # noqa: E402


def brute_scores(x, c):
    """float64 ||x - c||^2 [N, K] by definition."""
    return ((x.double().unsqueeze(1) - c.double().unsqueeze(0)) ** 2).sum(-1)


def test_assign_is_the_nearest_centroid_ties_to_the_smaller_index():
    gen = torch.Generator().manual_seed(1)
    c = torch.randn(40, 16, generator=gen)
    c[30] = c[3]                                          # an exact duplicate: the tie must go to 3
    x = torch.cat([c[3:4] + 0.01 * torch.randn(5, 16, generator=gen), torch.randn(200, 16, generator=gen)])
    labels, mind = km.kmeans_assign(x, c)
    assert labels.dtype == torch.int32 and labels.shape == (205,)
    ref = brute_scores(x, c)
    best = ref.min(1).values
    got = ref.gather(1, labels.long().unsqueeze(1)).squeeze(1)
    assert torch.allclose(got, best, rtol=1e-5, atol=1e-4)
    assert (labels[:5] == 3).all()
    xsq = (x.double() ** 2).sum(1)
    assert torch.allclose(mind.double() + xsq, best, rtol=1e-4, atol=1e-3)


def test_assign_batched_matches_each_batch():
    x, c = torch.randn(3, 50, 8), torch.randn(3, 7, 8)
    labels, _ = km.kmeans_assign(x, c)
    for b in range(3):
        assert torch.equal(labels[b], km.kmeans_assign(x[b], c[b])[0])


def test_centroid_update_means_counts_and_empty_clusters_keep_their_centroid():
    x = torch.randn(2, 300, 8)
    old = torch.randn(2, 6, 8)
    labels = torch.randint(0, 5, (2, 300), dtype=torch.int32)      # cluster 5 gets no points
    new, counts = km.centroid_update(x, labels, old)
    assert counts.dtype == torch.int32 and counts.sum().item() == 600
    assert torch.equal(new[:, 5], old[:, 5])
    for b in range(2):
        for k in range(5):
            pts = x[b][labels[b] == k]
            assert counts[b, k].item() == len(pts)
            assert torch.allclose(new[b, k], pts.mean(0), atol=1e-5)


def test_knn_sorted_distances_ties_and_short_corpus():
    gen = torch.Generator().manual_seed(2)
    corpus = torch.randn(12, 8, generator=gen)
    corpus[9] = corpus[2]                                 # duplicate rows: equal distances, 2 before 9
    q = corpus[2:3] + 0.001
    dist, idx = km.knn(q, corpus, 4)
    assert idx[0, 0].item() == 2 and idx[0, 1].item() == 9
    assert (dist[0, 1:] >= dist[0, :-1]).all()
    ref = brute_scores(q, corpus)[0]
    assert torch.allclose(dist[0].double(), ref[idx[0].long()], rtol=1e-4, atol=1e-4)
    dist, idx = km.knn(q, corpus[:3], 5)                  # M < k: (+inf, -1) after the M real entries
    assert idx[0, 3:].tolist() == [-1, -1] and torch.isinf(dist[0, 3:]).all()


def test_knn_inner_product_is_the_largest_products_descending():
    q, corpus = torch.randn(4, 8), torch.randn(30, 8)
    dist, idx = km.knn(q, corpus, 5, "ip")
    ref = (q @ corpus.t()).topk(5, dim=1)
    assert torch.equal(idx.long(), ref.indices) and torch.allclose(dist, ref.values, atol=1e-5)


def test_kmeans_recovers_separated_clusters():
    gen = torch.Generator().manual_seed(3)
    centres = torch.randn(4, 8, generator=gen) * 20
    owner = torch.randint(0, 4, (400,), generator=gen)
    x = centres[owner] + 0.1 * torch.randn(400, 8, generator=gen)
    c, labels, iters = km.kmeans(x, 4, iters=50)
    assert 1 <= iters.item() <= 50
    # every true cluster maps to one found cluster and back
    pairs = {(int(o), int(l)) for o, l in zip(owner.tolist(), labels.tolist())}
    assert len(pairs) == 4 and len({o for o, _ in pairs}) == 4 and len({l for _, l in pairs}) == 4


def test_initial_centroids_are_points_of_x():
    x = torch.randn(2, 100, 4)
    for init in ("k-means++", "random"):
        c = km.initial_centroids(x, 10, init, seed=5)
        for b in range(2):
            assert all(any(torch.equal(row, p) for p in x[b]) for row in c[b])
    with pytest.raises(ValueError, match="init"):
        km.initial_centroids(x, 10, "farthest")
    with pytest.raises(ValueError, match="k = 200"):
        km.initial_centroids(x, 200)


def test_torch_compile_fullgraph_traces_through_the_operators():
    def step(x, c):
        labels, _ = km.kmeans_assign(x, c)
        new, counts = km.centroid_update(x, labels, c)
        dist, idx = km.knn(x, new, 3)
        return new, counts, dist, idx

    x, c = torch.randn(64, 8), torch.randn(5, 8)
    compiled = torch.compile(step, fullgraph=True, backend="eager")
    for got, want in zip(compiled(x, c), step(x, c)):
        assert torch.equal(got, want)


def test_fake_tensors_give_the_output_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x, c = torch.empty(2, 1000, 64, dtype=torch.bfloat16), torch.empty(2, 50, 64, dtype=torch.bfloat16)
        labels, mind = km.kmeans_assign(x, c)
        new, counts = km.centroid_update(x, labels, c)
        dist, idx = km.knn(x, c, 7)
        cents, lab, it = km.kmeans(x, 50)
    assert labels.shape == (2, 1000) and labels.dtype == torch.int32 and mind.dtype == torch.float32
    assert new.shape == (2, 50, 64) and new.dtype == torch.bfloat16 and counts.shape == (2, 50)
    assert dist.shape == (2, 1000, 7) and idx.dtype == torch.int32
    assert cents.shape == (2, 50, 64) and lab.shape == (2, 1000) and it.shape == ()


def test_kernels_need_a_folder_and_name_the_missing_cubin(tmp_path, monkeypatch):
    monkeypatch.delenv("CAKE_KMEANS_CUBINS", raising=False)
    with pytest.raises(FileNotFoundError, match="CAKE_KMEANS_CUBINS"):
        km.Kernels()
    lib = km.Kernels(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="kmeans_assign_sm90_bf16_d64.cubin"):
        lib.assign(torch.empty(10, 64, dtype=torch.bfloat16), torch.empty(3, 64, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="bf16 or fp16"):
        lib.assign(torch.empty(10, 64), torch.empty(3, 64))
