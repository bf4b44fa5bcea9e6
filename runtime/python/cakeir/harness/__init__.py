"""The evolution harness: a record of every candidate kernel and what the compiler and the GPU said about it,
the evaluate step that fills it from cakec, tactics and the built-in search, and the agent tools over JSON lines
and MCP (docs/harness.md).

    from cakeir.harness import RunRecord, Compiler, evaluate
    with RunRecord("runs.db") as record:
        summary = evaluate(Compiler(), open("k.cake").read(), {"BN": 128}, shape="M=4096,N=4096,K=4096",
                           record=record, producer="agent-7")
        record.best("gemm", "M=4096,N=4096,K=4096", metric="predicted")

Modules, one concept each: schema (SQLite schema and migrations), record (the run record API), signature
(failure signatures), compiler (running cakec), evaluate (verify -> estimate -> compile into the record),
reference (language reference sections), family (kernel families and candidates), tactics (the tactic
registry), search (the evolutionary search and its measure callback), tools (the agent tool table),
jsonl_server and mcp_server (its two frontends), reduce (delta debugging of a failing kernel) and
propose_rule (a rule for cakec --rules from it, validated on the corpus; docs/rules.md), record_cli, search_cli and __main__ (the command line)."""

from .compiler import Compiler, StageResult
from .evaluate import evaluate
from .record import RunRecord, ir_sha256
from .schema import CURRENT_VERSION, migrate, open_database
from .signature import failure_signature
from .family import Candidate, Family
from .search import Measurement, MeasureRequest, Search
from .tactics import TACTICS as TACTIC_REGISTRY
from .tools import TOOLS, ToolContext, ToolError, call_tool

__all__ = ["Compiler", "StageResult", "evaluate", "RunRecord", "ir_sha256", "CURRENT_VERSION", "migrate",
           "open_database", "failure_signature", "TOOLS", "ToolContext", "ToolError", "call_tool", "Candidate",
           "Family", "Measurement", "MeasureRequest", "Search", "TACTIC_REGISTRY"]
