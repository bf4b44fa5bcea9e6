"""The harness's MCP server (`python -m cakeir.harness serve --mcp`) driven through the MCP SDK's stdio client
by the same scripted evolution as the JSON-lines test (harness_evolution.py).  Skipped when the `mcp`
package is not installed (utils/common.sh installs it into the test environment when it can)."""

import os
import sys

import pytest

from harness_evolution import REPO, run_evolution


def test_scripted_evolution_over_mcp(cakec_only, tmp_path):
    pytest.importorskip("mcp", reason="the mcp package is not installed")
    anyio = pytest.importorskip("anyio")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cakeir.harness", "serve", "--mcp", "--db", str(tmp_path / "runs.db"), "--cakec", cakec_only],
        env={"PYTHONPATH": os.path.join(REPO, "runtime", "python"), "PATH": os.environ.get("PATH", "")})

    async def evolve():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                assert {"verify", "evaluate", "best", "failures"} <= {tool.name for tool in listed.tools}
                calls = []

                async def call(tool, arguments):
                    result = await session.call_tool(tool, arguments)
                    if result.is_error:
                        return False, result.content[0].text
                    return True, result.structured_content

                # run_evolution is synchronous: each of its calls is run on the event loop from a worker thread.
                def sync_call(tool, arguments):
                    calls.append(tool)
                    return anyio.from_thread.run(call, tool, arguments)

                await anyio.to_thread.run_sync(run_evolution, sync_call)
                assert "evaluate" in calls

    anyio.run(evolve)
