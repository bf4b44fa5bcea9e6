"""`python -m cakeir.harness clusters|propose`: learning from a run record on the command line (clusters.py,
proposals.py).

    python -m cakeir.harness clusters --record runs.db [--stage verify] [--examples 2] [--json]
    python -m cakeir.harness propose --record runs.db [-o proposals.json] [--min-lines 4] [--min-sources 2]
                                     [--min-lineages 2] [--json]

`clusters` prints the failure clusters (signature, frequency, kernels, producers, an example error, shared
-D values, example lineages) or their JSON.  `propose` prints the `fn` primitive and tactic-sequence
proposals with their evidence and with -o writes them as a proposal file (format cake-proposals); nothing
is merged anywhere.  Exit 0, or 2 when the record does not exist."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import List, Optional

from .clusters import clusters_text, failure_clusters
from .proposals import proposals_document, proposals_text
from .record import RunRecord


def _record_exists(path: str) -> bool:
    if os.path.isfile(path):
        return True
    print("error: no run record at %s" % path, file=sys.stderr)
    return False


def clusters_main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cakeir.harness clusters",
                                     description="Failure signatures clustered across a run record.")
    parser.add_argument("--record", required=True)
    parser.add_argument("--stage", default="", help="only failures of this stage (verify, estimate, ...)")
    parser.add_argument("--examples", type=int, default=2, help="example lineages per cluster (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not _record_exists(args.record):
        return 2
    with RunRecord(args.record) as record:
        report = failure_clusters(record, args.stage, args.examples)
    sys.stdout.write(json.dumps(report, indent=1, sort_keys=True) + "\n" if args.json else clusters_text(report))
    return 0


def propose_main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cakeir.harness propose",
                                     description="Propose fn primitives and tactics from a run record.")
    parser.add_argument("--record", required=True)
    parser.add_argument("-o", "--output", default="", help="write the proposal file (cake-proposals JSON)")
    parser.add_argument("--min-lines", type=int, default=4, help="shortest recurring block (default 4 lines)")
    parser.add_argument("--min-sources", type=int, default=2, help="distinct IR texts it must occur in (default 2)")
    parser.add_argument("--min-lineages", type=int, default=2,
                        help="distinct starting candidates a tactic sequence must have improved (default 2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not _record_exists(args.record):
        return 2
    with RunRecord(args.record) as record:
        document = proposals_document(record, args.min_lines, args.min_sources, args.min_lineages)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1, sort_keys=True)
    sys.stdout.write(json.dumps(document, indent=1, sort_keys=True) + "\n" if args.json else proposals_text(document))
    return 0
