"""The cheat suite of the measurement service's self-test: the problem C = A + B (bf16[N]) and seven
candidates - the honest kernel (samples/vector_add.cake) and the six cheats of this folder, each with the
classification the service must give it.

Used by tests/python/test_measure.py (interpreter backend, small shapes) and bench/measure_selftest.py (GPU
backend, device shapes); `sizes` chooses the shapes: the tuning shape and the others.  The below_floor
candidate claims, at the tuning shape, the time its 6 N bytes would take at CLAIMED_BYTES_PER_S - faster
than any memory of the machine moves them."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from cakeir.measure import Candidate, Launch, Problem, Shape, TensorSpec

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
HONEST = os.path.join(REPO, "samples", "vector_add.cake")
CLAIMED_BYTES_PER_S = 40e12                 # 40 TB/s: above the H200's HBM (4.8) and L2 (12.4) peaks

CPU_SIZES = {"tuning": 4096, "others": [1000, 4103, 2 * 4096 + 8]}
DEVICE_SIZES = {"tuning": 1 << 24, "others": [1_000_003, (1 << 27) + 8]}


def reference_host(inputs: Mapping[str, Any], shape: Shape) -> Dict[str, List[float]]:
    a, b = inputs["A"].values, inputs["B"].values
    return {"C": [float(x) + float(y) for x, y in zip(a, b)]}


def reference_torch(torch: Any, inputs: Mapping[str, Any], shape: Shape) -> Dict[str, Any]:
    return {"C": inputs["A"].double() + inputs["B"].double()}


def torch_add(torch: Any, tensors: Mapping[str, Any], shape: Shape) -> Any:
    a, b, c = tensors["A"], tensors["B"], tensors["C"]
    return lambda: torch.add(a, b, out=c)


def problem(sizes: Mapping[str, Any] = CPU_SIZES) -> Problem:
    spec = [TensorSpec("A", "bf16", ("N",), "in"), TensorSpec("B", "bf16", ("N",), "in"),
            TensorSpec("C", "bf16", ("N",), "out")]
    tuning = Shape("N=%d" % sizes["tuning"], {"N": int(sizes["tuning"])})
    others = [Shape("N=%d" % n, {"N": int(n)}) for n in sizes["others"]]
    return Problem(name="vector_add", tensors=spec, tuning_shape=tuning, shapes=others,
                   reference_host=reference_host, reference_torch=reference_torch, tolerance=1e-2,
                   flops=lambda shape: (0.0, float(shape["N"])), peers={"torch.add": torch_add})


def candidates(prob: Problem) -> List[Tuple[Candidate, Optional[str]]]:
    """(candidate, expected verdict: a Classification value or None for the honest kernel)."""
    tuning = prob.tuning_shape
    claimed = 6.0 * tuning["N"] / CLAIMED_BYTES_PER_S * 1e3
    one = [Launch("vector_add")]
    cheat = lambda name: os.path.join(HERE, name + ".cake")  # noqa: E731
    return [
        (Candidate("honest", HONEST, one), None),
        (Candidate("partial_write", cheat("partial_write"), one), "partial_output"),
        (Candidate("shape_special_case", cheat("shape_special_case"), one, defines={"TUNED_N": "{N}"}),
         "shape_special_case"),
        (Candidate("modifies_input", cheat("modifies_input"), one), "input_modified"),
        (Candidate("stale_output", cheat("stale_output"), one), "stale_output"),
        (Candidate("untimed_work", cheat("untimed_work"),
                   [Launch("vector_add_work", stream="side"), Launch("vector_add")]), "untimed_work"),
        (Candidate("below_floor", cheat("below_floor"), one, claimed_ms={tuning.label: claimed}), "below_floor"),
    ]
