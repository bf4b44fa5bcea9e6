"""The MCP agent interface: `python -m cakeir.harness serve --mcp` speaks the Model Context Protocol over stdio
with the official Python SDK (PyPI `mcp`, 2.x), serving the same tool table as the JSON-lines server
(tools.TOOLS; docs/harness.md, section "MCP").

The SDK's low-level Server lists each Tool with its JSON Schema and routes tools/call to call_tool.  A handler
runs in a worker thread (cakec subprocesses and SQLite block), one call at a time, since the run record's
connection belongs to one thread at a time.  The result is returned twice, as the protocol suggests: as
structured content and as its JSON text; a ToolError is a result with is_error set.  The SDK is imported
only here, so the rest of the harness works without it."""

from __future__ import annotations

import json
import threading
from typing import Any, Dict

from .tools import TOOLS, ToolContext, ToolError, call_tool

SERVER_NAME = "cake-harness"


def serve(ctx: ToolContext) -> None:
    """Serves MCP on stdin/stdout until the client closes the connection; ImportError without the SDK."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    lock = threading.Lock()

    def call(name: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        with lock:
            return call_tool(ctx, name, arguments)

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=t.name, description=t.description,
                                                       input_schema=t.schema) for t in TOOLS])

    async def call_tool_handler(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            result = await anyio.to_thread.run_sync(call, params.name, dict(params.arguments or {}))
        except ToolError as error:
            return types.CallToolResult(content=[types.TextContent(text=str(error))], is_error=True)
        except Exception as error:  # noqa: BLE001 - reported to the client, the server goes on
            return types.CallToolResult(content=[types.TextContent(text="internal error: %s: %s"
                                                                   % (type(error).__name__, error))], is_error=True)
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(result))], structured_content=result)

    server: Server[Any] = Server(SERVER_NAME, version="1", on_list_tools=list_tools,
                                 on_call_tool=call_tool_handler)

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
