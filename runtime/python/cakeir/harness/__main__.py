"""`python -m cakeir.harness COMMAND ...`: the harness's command line (docs/harness.md).

    record SUBCOMMAND ...                  the run record (record_cli.py)
    tactics list|show NAME|apply ...       the tactic registry (search_cli.py)
    search --seed FILE --shape S ... --budget N --db PATH
                                           the evolutionary search, cost model as the measure step
    calibrate --record runs.db [--machine h200] [--output PATH]
                                           refit the machine description to the record's timings
                                           (calibration_cli.py), accepted when held-out error improves
    clusters --record runs.db [--json]     failure signatures clustered, with example lineages (learn_cli.py)
    propose --record runs.db [-o FILE]     fn primitive and tactic proposals with their evidence (learn_cli.py)
    serve --jsonl|--mcp [--db PATH] [--cakec PATH] [--timeout S] [--work-dir DIR]
                                           the agent tools over JSON lines or MCP, on stdin/stdout
`serve --mcp` needs the `mcp` package (pip install 'mcp>=2.3,<3'); without it, it exits 3 saying so."""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from . import calibration_cli, jsonl_server, learn_cli, record_cli, search_cli
from .tools import ToolContext


def serve_main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m cakeir.harness serve",
                                     description="Serve the agent tools on stdin/stdout.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--jsonl", action="store_true", help="one JSON request per line, one response per line")
    mode.add_argument("--mcp", action="store_true", help="the Model Context Protocol (stdio transport)")
    parser.add_argument("--db", default=os.environ.get("CAKE_RUN_RECORD"), help="the run record (default $CAKE_RUN_RECORD)")
    parser.add_argument("--cakec", default=None, help="the cakec to run (default: as cakeir.compile finds it)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per cakec request (default 300)")
    parser.add_argument("--work-dir", default=None, help="folder for outputs (default: a new temporary folder)")
    args = parser.parse_args(argv)
    ctx = ToolContext(args.db, args.cakec, args.timeout, args.work_dir)
    try:
        if args.jsonl:
            jsonl_server.serve(ctx, sys.stdin, sys.stdout)
            return 0
        try:
            from . import mcp_server
            mcp_server.serve(ctx)
        except ImportError as error:
            print("error: the MCP server needs the mcp package (pip install 'mcp>=2.3,<3'): %s" % error,
                  file=sys.stderr)
            return 3
        return 0
    finally:
        ctx.close()


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    subcommands = {"record": record_cli.main, "tactics": search_cli.tactics_main, "search": search_cli.search_main,
                   "calibrate": calibration_cli.main, "clusters": learn_cli.clusters_main,
                   "propose": learn_cli.propose_main, "serve": serve_main}
    if args and args[0] in subcommands:
        return subcommands[args[0]](args[1:])
    print(__doc__.split("\n\n", 1)[1] if __doc__ else "", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
