"""The JSON-lines agent interface: `python -m cakeir.harness serve --jsonl` reads one JSON request per line on
stdin and writes one JSON response per line on stdout, in order (docs/harness.md, section "JSON lines").

Request:  {"id": ANY, "tool": NAME, "arguments": {...}}     (id optional, echoed back)
          {"id": ANY, "tool": "list_tools"}                  the tool table: names, descriptions, schemas
Response: {"id": ANY, "ok": true, "result": {...}}
          {"id": ANY, "ok": false, "error": MESSAGE}
A line that is not a JSON object is answered with an error (id null); an exception other than ToolError is
answered as "internal error: ..." and the server goes on.  End of input, or a client that closed its end,
ends the server.  The tools are
tools.TOOLS, the same table the MCP server serves."""

from __future__ import annotations

import json
import traceback
from typing import IO, Any, Dict

from .tools import TOOLS, ToolContext, ToolError, call_tool


def list_tools() -> Dict[str, Any]:
    return {"tools": [{"name": t.name, "description": t.description, "input_schema": t.schema} for t in TOOLS]}


def handle_line(ctx: ToolContext, line: str) -> Dict[str, Any]:
    """The response to one request line."""
    try:
        request = json.loads(line)
    except ValueError as error:
        return {"id": None, "ok": False, "error": "not JSON: %s" % error}
    if not isinstance(request, dict):
        return {"id": None, "ok": False, "error": "a request is a JSON object {id, tool, arguments}"}
    response: Dict[str, Any] = {"id": request.get("id")}
    try:
        name = request.get("tool")
        if not isinstance(name, str):
            raise ToolError("the request names no tool ('tool': NAME)")
        arguments = request.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise ToolError("'arguments' must be a JSON object")
        result = list_tools() if name == "list_tools" else call_tool(ctx, name, arguments)
        response.update(ok=True, result=result)
    except ToolError as error:
        response.update(ok=False, error=str(error))
    except Exception as error:  # noqa: BLE001 - one bad request must not end the session
        response.update(ok=False, error="internal error: %s: %s" % (type(error).__name__, error),
                        traceback=traceback.format_exc(limit=5))
    return response


def serve(ctx: ToolContext, stdin: IO[str], stdout: IO[str]) -> None:
    """Answers each non-empty line until end of input or until the client stops reading."""
    for line in stdin:
        if not line.strip():
            continue
        try:
            stdout.write(json.dumps(handle_line(ctx, line)) + "\n")
            stdout.flush()
        except BrokenPipeError:
            return
