"""The evaluate step: one candidate through cakec on the CPU - verify, estimate, compile - with each stage's
outcome recorded in the run record (docs/harness.md, section "Evaluation").

The IR text is written to a fresh folder as KERNEL.cake: a temporary one, removed afterwards, unless the
caller names a work folder (then WORK/ID, ID a hash of the IR, defines and arch, and the cubin stays there);
never the folder the IR came from.  The stages run in order and the first that fails ends the
evaluation with its failure signature (signature.py):
  verify    cakec FILE --verify-only --diagnostics-format=json (front end, Z3 obligations, PTX in memory)
  estimate  cakec FILE --estimate --shape S --json --no-verify, when a shape is given
  compile   cakec FILE -o KERNEL.cubin -v --no-verify: ptxas, the manifest, registers and spills; only when
            ptxas is installed (otherwise the stage is reported as skipped and nothing is recorded for it)
Every stage runs under the Compiler's time limit; a stage past it fails with the code `timeout`."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from typing import Any, Dict, List, Optional, Sequence

from .. import _tools
from .compiler import Compiler, Defines, StageResult
from .record import RunRecord, ir_sha256
from .signature import failure_signature

_KERNEL_NAME = re.compile(r"^\s*kernel\s+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


def kernel_name(ir_text: str) -> str:
    """The first kernel the IR declares ("" when it declares none that this pattern finds)."""
    match = _KERNEL_NAME.search(ir_text)
    return match.group(1) if match else ""


def stage_signature(result: StageResult, ir_text: str) -> str:
    fallback = "timeout" if result.timed_out else "exit-%s" % result.exit_code
    return failure_signature(result.stage, result.diagnostics, ir_text, fallback)


def write_candidate(ir_text: str, folder: str, kernel: str) -> str:
    """Writes the IR to folder/KERNEL.cake; its path."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, (kernel or "candidate") + ".cake")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(ir_text)
    return path


def evaluate(compiler: Compiler, ir_text: str, defines: Optional[Defines] = None, arch: str = "",
             shape: Any = None, record: Optional[RunRecord] = None, parents: Sequence[int] = (),
             producer: str = "", kernel: str = "", work_dir: Optional[str] = None,
             compile_cubin: bool = True) -> Dict[str, Any]:
    """Runs the stages and (with a record) records the candidate and each stage.  Returns {candidate (id or
    None), kernel, ok, failed_stage, failure_signature, compiler_version, stages: [StageResult.to_json()],
    skipped: [stage names]}."""
    kernel = kernel or kernel_name(ir_text)
    version = compiler.version()
    candidate_id = record.add_candidate(ir_text, defines, arch, kernel, producer, parents) if record else None
    own_folder = work_dir is None
    identity = json.dumps([ir_sha256(ir_text), defines or {}, arch], sort_keys=True)
    folder = tempfile.mkdtemp(prefix="cake-eval-") if work_dir is None else \
        os.path.join(work_dir, hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16])
    summary: Dict[str, Any] = {"candidate": candidate_id, "kernel": kernel, "ok": True, "failed_stage": None,
                               "failure_signature": None, "compiler_version": version, "stages": [],
                               "skipped": []}
    try:
        source = write_candidate(ir_text, folder, kernel)
        steps: List[str] = ["verify"] + (["estimate"] if shape else []) + (["compile"] if compile_cubin else [])
        if not shape:
            summary["skipped"].append("estimate")
        if compile_cubin and _tools.find_ptxas() is None:
            steps.remove("compile")
            summary["skipped"].append("compile")
        for step in steps:
            if step == "verify":
                result = compiler.verify(source, defines, arch)
            elif step == "estimate":
                result = compiler.estimate(source, shape, defines, arch)
            else:
                result = compiler.compile(source, os.path.join(folder, (kernel or "candidate") + ".cubin"),
                                          defines, arch)
            signature = None if result.ok else stage_signature(result, ir_text)
            if record is not None and candidate_id is not None:
                record.add_stage(candidate_id, result.stage, result.ok, result.exit_code, result.diagnostics,
                                 result.output, shape if step == "estimate" else None, signature, version,
                                 result.seconds)
            summary["stages"].append(result.to_json())
            if not result.ok:
                summary.update(ok=False, failed_stage=result.stage, failure_signature=signature)
                break
    finally:
        if own_folder:
            shutil.rmtree(folder, ignore_errors=True)
    return summary
