"""`python -m cakeir.harness record SUBCOMMAND --db PATH ...`: the run record from the command line
(docs/harness.md, section "Command line").

    init                      create the database (or migrate an older one) and print its schema version
    add FILE [-D N=V]... [--arch A] [--parent ID]... [--producer P] [--kernel K] [--shape S] [--evaluate]
                              record a candidate; with --evaluate also run verify -> estimate -> compile
    best KERNEL --shape S [--metric time|predicted] [--limit N]
    lineage ID                ancestors and descendants
    diff A B                  unified diff of two candidates' IR
    failures [--stage S] [--json]   failure signatures, most frequent first
    export [-o FILE]          every candidate as JSON lines
    show ID                   one candidate with every recorded outcome
Query results are JSON on stdout (failures: a table unless --json; diff: the diff).  Exit 0, or 1 with a
message on stderr when the request cannot be served (unknown candidate, unreadable file, cakec missing)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional

from .compiler import Compiler
from .evaluate import evaluate, kernel_name
from .record import RunRecord
from .record_merge import merge_records
from .schema import schema_version


def _defines(pairs: List[str]) -> Dict[str, Any]:
    found: Dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError("-D wants NAME=VALUE, not %r" % pair)
        found[name] = int(value, 0) if _is_int(value) else value
    return found


def _is_int(text: str) -> bool:
    try:
        int(text, 0)
        return True
    except ValueError:
        return False


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m cakeir.harness record", description="The run record.")
    top.add_argument("--db", default=os.environ.get("CAKE_RUN_RECORD", "cake-runs.db"),
                     help="the database (default $CAKE_RUN_RECORD, else ./cake-runs.db)")
    sub = top.add_subparsers(dest="command", required=True)
    sub.add_parser("init")
    add = sub.add_parser("add")
    add.add_argument("file")
    add.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    add.add_argument("--arch", default="")
    add.add_argument("--parent", type=int, action="append", default=[])
    add.add_argument("--producer", default="")
    add.add_argument("--kernel", default="")
    add.add_argument("--shape", default="")
    add.add_argument("--evaluate", action="store_true")
    add.add_argument("--no-compile", action="store_true", help="with --evaluate: stop after the estimate")
    add.add_argument("--cakec", default=None)
    add.add_argument("--timeout", type=float, default=300.0)
    best = sub.add_parser("best")
    best.add_argument("kernel")
    best.add_argument("--shape", required=True)
    best.add_argument("--metric", choices=["time", "predicted"], default="time")
    best.add_argument("--limit", type=int, default=1)
    lineage = sub.add_parser("lineage")
    lineage.add_argument("candidate", type=int)
    diff = sub.add_parser("diff")
    diff.add_argument("a", type=int)
    diff.add_argument("b", type=int)
    failures = sub.add_parser("failures")
    failures.add_argument("--stage", default="")
    failures.add_argument("--json", action="store_true")
    export = sub.add_parser("export")
    export.add_argument("-o", "--output", default="-")
    show = sub.add_parser("show")
    show.add_argument("candidate", type=int)
    merge = sub.add_parser("merge", help="copy other records (e.g. the shards of a job array) into --db")
    merge.add_argument("sources", nargs="+")
    return top


def _print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, sort_keys=True))


def main(argv: Optional[List[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        with RunRecord(args.db) as record:
            if args.command == "init":
                print("%s: schema version %d" % (args.db, schema_version(record.conn)))
            elif args.command == "add":
                with open(args.file, encoding="utf-8") as handle:
                    text = handle.read()
                defines = _defines(args.defines)
                if args.evaluate:
                    summary = evaluate(Compiler(args.cakec, args.timeout), text, defines, args.arch, args.shape,
                                       record, args.parent, args.producer, args.kernel,
                                       compile_cubin=not args.no_compile)
                    _print_json({k: v for k, v in summary.items() if k != "stages"} |
                                {"stages": [{"stage": s["stage"], "ok": s["ok"]} for s in summary["stages"]]})
                    return 0
                candidate = record.add_candidate(text, defines, args.arch, args.kernel or kernel_name(text),
                                                 args.producer, args.parent)
                _print_json({"candidate": candidate})
            elif args.command == "best":
                _print_json(record.best(args.kernel, args.shape, args.metric, args.limit))
            elif args.command == "lineage":
                _print_json(record.lineage(args.candidate))
            elif args.command == "diff":
                sys.stdout.write(record.diff(args.a, args.b))
            elif args.command == "failures":
                histogram = record.failure_histogram(args.stage)
                if args.json:
                    _print_json(histogram)
                else:
                    for entry in histogram:
                        print("%5d  %-40s  candidates %s" % (entry["candidates"], entry["signature"],
                                                             ",".join(map(str, entry["candidate_ids"]))))
            elif args.command == "export":
                if args.output == "-":
                    record.export_jsonl(sys.stdout)
                else:
                    with open(args.output, "w", encoding="utf-8") as out:
                        count = record.export_jsonl(out)
                    print("%s: %d candidates" % (args.output, count), file=sys.stderr)
            elif args.command == "show":
                _print_json(record.candidate(args.candidate, full=True))
            elif args.command == "merge":
                missing = [path for path in args.sources if not os.path.isfile(path)]
                if missing:
                    raise OSError("no run record at %s" % ", ".join(missing))
                _print_json(merge_records(record, args.sources))
    except KeyError as error:
        print("error: %s" % error.args[0], file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print("error: %s" % error, file=sys.stderr)
        return 1
    return 0
