"""`python -m cakeir.harness calibrate`: the calibration loop on a run record (calibration.py) from the command
line.

    python -m cakeir.harness calibrate --record runs.db [--machine h200] [--gpu H200] [--holdout-every 2]
        [--output machines/h200-refit.json] [--report report.json] [--source-root REPO] [--work-dir DIR]

Prints the before/after mean |ln(predicted / measured)| on the held-out and the fitted measurements, overall
and per kernel family, and whether the refit is accepted (held-out error strictly lower); with --output the
accepted description is written there (nothing is written when it is rejected).  --report writes the whole
report as JSON.  Exit status 0 when accepted, 1 when rejected, 2 when the record gives nothing to fit."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional

from .calibration import calibrate_record, report_text
from .compiler import Compiler
from .record import RunRecord


def _default_root() -> str:
    """The source tree this package sits in (runtime/python/cakeir/harness -> the root), when it has kernels/."""
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
    return root if os.path.isdir(os.path.join(root, "kernels")) else ""


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cakeir.harness calibrate",
                                     description="Refit the machine description to the record's GPU timings.")
    parser.add_argument("--record", required=True, help="the run record (runs.db)")
    parser.add_argument("--machine", default="h200", help="prior description NAME or PATH (default h200)")
    parser.add_argument("--gpu", default="", help="only timings whose gpu contains this text")
    parser.add_argument("--holdout-every", type=int, default=2, help="hold out every K-th candidate (default 2)")
    parser.add_argument("--output", default="", help="where to write the refit when it is accepted")
    parser.add_argument("--report", default="", help="write the report as JSON here")
    parser.add_argument("--source-root", default=_default_root(),
                        help="the tree whose kernels/*/family_*.json name the families (default: this package's)")
    parser.add_argument("--work-dir", default="", help="measurements and fitted description (default: temporary)")
    parser.add_argument("--cakec", default=None, help="the cakec to run (default: as cakeir.compile finds it)")
    args = parser.parse_args(argv)
    if not os.path.isfile(args.record):
        print("error: no run record at %s" % args.record, file=sys.stderr)
        return 2
    with RunRecord(args.record) as record:
        report = calibrate_record(Compiler(args.cakec), record, args.machine, args.output, args.gpu,
                                  args.holdout_every, args.source_root, args.work_dir)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1, sort_keys=True)
    sys.stdout.write(report_text(report))
    if "held_out_before" not in report:
        return 2
    return 0 if report["accepted"] else 1
