"""`python -m cakeir.harness tactics ...` and `python -m cakeir.harness search ...`: the tactic registry and
the built-in search from the command line (docs/harness.md, sections "Tactics" and "Search").

    tactics list [FILE [-D N=V]...]          every tactic (with FILE: whether it applies and why not)
    tactics show NAME                        one tactic: its text, parameters, preconditions
    tactics apply --tactic NAME FILE [-D N=V]... [--param N=V]... [--shape S]...
                                             the children (member, source, defines) and, with shapes, each
                                             child's predicted speed-up over FILE (cakec --estimate)
    search --seed FILE --shape S [--shape S]... --budget N --db PATH [--measure predicted] [--rng-seed R]
           [--population P] [--offspring K] [--prune-margin X] [--max-candidates N] [--no-compile]
           [--work-dir DIR] [--out DIR] [-D N=V]...
                                             the evolutionary search with the cost model as the measure
                                             step (GPU measurement: bench/search_gemm.py); prints the
                                             summary, and with --out writes search.json and search.md
Output is JSON on stdout (search: the markdown summary).  Exit 0, or 1 with `error: ...` on stderr."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional

from .compiler import Compiler
from .family import Candidate
from .record import RunRecord
from .record_cli import _defines
from .scale import make_executor, parse_shard, shard
from .search import Search, summary_markdown
from .tactics import TACTICS, predicted_effect, tactic


def tactics_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m cakeir.harness tactics", description="The tactic registry.")
    sub = top.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list")
    listing.add_argument("file", nargs="?")
    listing.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    show = sub.add_parser("show")
    show.add_argument("name")
    apply = sub.add_parser("apply")
    apply.add_argument("--tactic", required=True)
    apply.add_argument("file")
    apply.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    apply.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                       help="one choice instead of every legal one")
    apply.add_argument("--shape", action="append", default=[], help="estimate parent and children here")
    apply.add_argument("--cakec", default=None)
    return top


def apply_tactic(name: str, candidate: Candidate, params: Optional[Dict[str, Any]], shapes: List[Any],
                 compiler: Optional[Compiler]) -> Dict[str, Any]:
    """The children of one tactic on a candidate, each described, with its predicted effect at `shapes`."""
    chosen = tactic(name)
    unmet = chosen.unmet(candidate)
    if unmet:
        return {"tactic": name, "applicable": False, "unmet": unmet, "children": []}
    children = []
    for child in chosen.apply(candidate, params or None):
        entry = child.describe()
        if shapes and compiler is not None:
            entry["predicted"] = predicted_effect(compiler, candidate, child, shapes)
        children.append(entry)
    return {"tactic": name, "applicable": True, "parent": candidate.describe(), "children": children}


def tactics_main(argv: List[str]) -> int:
    args = tactics_parser().parse_args(argv)
    try:
        if args.command == "list":
            candidate = Candidate.from_file(args.file, _defines(args.defines)) if args.file else None
            print(json.dumps([t.describe(candidate) for t in TACTICS], indent=2))
        elif args.command == "show":
            print(json.dumps(tactic(args.name).describe(), indent=2))
        else:
            candidate = Candidate.from_file(args.file, _defines(args.defines))
            compiler = Compiler(args.cakec) if args.shape else None
            print(json.dumps(apply_tactic(args.tactic, candidate, _defines(args.param), args.shape, compiler),
                             indent=2))
    except KeyError as error:
        print("error: %s" % error.args[0], file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print("error: %s" % error, file=sys.stderr)
        return 1
    return 0


def search_parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m cakeir.harness search",
                                  description="Evolutionary search over tactics from a seed kernel.")
    top.add_argument("--seed", required=True, help="the seed .cake file")
    top.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=VALUE")
    top.add_argument("--shape", action="append", required=True, help="a search shape (repeat for several)")
    top.add_argument("--budget", type=int, default=50, help="measured candidates (default 50)")
    top.add_argument("--db", default=os.environ.get("CAKE_RUN_RECORD", "cake-runs.db"))
    top.add_argument("--measure", choices=["predicted"], default="predicted",
                     help="the measure step (the cost model; GPU timing: bench/search_gemm.py)")
    top.add_argument("--rng-seed", type=int, default=0)
    top.add_argument("--population", type=int, default=8)
    top.add_argument("--offspring", type=int, default=10, help="children screened per measured one")
    top.add_argument("--prune-margin", type=float, default=0.05)
    top.add_argument("--max-candidates", type=int, default=0, help="children generated at most (default 20 x budget)")
    top.add_argument("--no-compile", action="store_true", help="skip ptxas (the cost model needs no cubin)")
    top.add_argument("--work-dir", default=None, help="candidates' folders (default ./cake-search)")
    top.add_argument("--out", default=None, help="write search.json and search.md here")
    top.add_argument("--cakec", default=None)
    top.add_argument("--timeout", type=float, default=300.0)
    top.add_argument("--quiet", action="store_true")
    top.add_argument("--jobs", type=int, default=1, help="cakec's stages in a local pool of N processes")
    top.add_argument("--ray", default="", metavar="ADDRESS",
                     help="cakec's stages as Ray tasks on the cluster at ADDRESS ('local': a local instance)")
    top.add_argument("--runs", type=int, default=1,
                     help="independent runs, with rng seeds --rng-seed, --rng-seed + 1, ... (default 1)")
    top.add_argument("--shard", default="", metavar="I/N",
                     help="do only the runs whose index is I modulo N (Slurm: $SLURM_ARRAY_TASK_ID/N); merge "
                          "the shards' records afterwards with `record --db ALL.db merge SHARD.db...`")
    return top


def write_outputs(result: Dict[str, Any], out: str) -> None:
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "search.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1, sort_keys=True)
    with open(os.path.join(out, "search.md"), "w", encoding="utf-8") as handle:
        handle.write(summary_markdown(result))


def search_main(argv: List[str]) -> int:
    args = search_parser().parse_args(argv)
    executor = None
    try:
        index, count = parse_shard(args.shard) if args.shard else (0, 1)
        runs = shard(list(range(args.runs)), index, count)
        seed = Candidate.from_file(args.seed, _defines(args.defines))
        executor = make_executor(args.jobs, args.ray)
        with RunRecord(args.db) as record:
            for run in runs:
                work_dir = os.path.join(args.work_dir, "run%d" % run) if args.work_dir and args.runs > 1 else \
                    args.work_dir
                search = Search(Compiler(args.cakec, args.timeout), record, args.shape, None, args.budget,
                                args.population, args.rng_seed + run, args.prune_margin, args.offspring,
                                args.max_candidates, compile_cubin=not args.no_compile, work_dir=work_dir,
                                log=None if args.quiet else (lambda line: print(line, file=sys.stderr)),
                                executor=executor)
                result = search.run(seed)
                result["run"] = run
                if args.out:
                    write_outputs(result, args.out if args.runs == 1 else os.path.join(args.out, "run%d" % run))
                sys.stdout.write(summary_markdown(result))
    except (OSError, ValueError, KeyError) as error:
        print("error: %s" % error, file=sys.stderr)
        return 1
    finally:
        if executor is not None:
            executor.close()
    return 0
