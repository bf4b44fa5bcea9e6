"""What flashlib needs that the device machine lacks, stubbed once for every bench that imports it.

flashlib (and flash-kmeans) import tqdm for progress bars only, and flashlib's KNN / k-means packages import
their CuTe-DSL backends, which need NVIDIA's `cutlass` Python package.  stub_peer_imports() puts a tqdm whose
trange / tqdm are plain iteration in sys.modules when tqdm is missing, and, when `cutlass` cannot be imported,
modules for flashlib.primitives.{knn,kmeans}.cutedsl that report the backend unavailable - the peers' Triton paths
(what the benches time) are untouched."""

import sys
import types


def stub_peer_imports():
    try:
        import tqdm  # noqa: F401
    except ImportError:
        fake = types.ModuleType("tqdm")
        fake.trange, fake.tqdm = range, (lambda it, *a, **k: it)
        sys.modules["tqdm"] = fake
    try:
        import cutlass  # noqa: F401
    except Exception:  # noqa: BLE001  no CuTe-DSL: its backends are stubbed, the Triton paths stay
        knn = types.ModuleType("flashlib.primitives.knn.cutedsl")
        knn.cutedsl_available = lambda *args, **kwargs: False
        knn.cutedsl_flash_knn = None
        sys.modules["flashlib.primitives.knn.cutedsl"] = knn
        kmeans = types.ModuleType("flashlib.primitives.kmeans.cutedsl")
        kmeans.cutedsl_kmeans_Euclid = kmeans.cutedsl_assign_euclid = None
        sys.modules["flashlib.primitives.kmeans.cutedsl"] = kmeans
