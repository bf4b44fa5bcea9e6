"""The harness's JSON-lines agent interface (`python -m cakeir.harness serve --jsonl`) driven by a scripted
client through a short evolution (harness_evolution.py), against the built cakec; plus the protocol's
error responses."""

import json
import os
import subprocess
import sys

from harness_evolution import REPO, run_evolution


def start_server(cakec, db):
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "runtime", "python"))
    return subprocess.Popen([sys.executable, "-m", "cakeir.harness", "serve", "--jsonl", "--db", db, "--cakec", cakec,
                             "--timeout", "120"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                            universal_newlines=True)


def test_scripted_evolution_over_json_lines(cakec_only, tmp_path):
    server = start_server(cakec_only, str(tmp_path / "runs.db"))
    counter = [0]

    def send(request):
        server.stdin.write(json.dumps(request) + "\n")
        server.stdin.flush()
        return json.loads(server.stdout.readline())

    def call(tool, arguments):
        counter[0] += 1
        response = send({"id": counter[0], "tool": tool, "arguments": arguments})
        assert response["id"] == counter[0]
        return (True, response["result"]) if response["ok"] else (False, response["error"])

    try:
        listed = send({"id": "t", "tool": "list_tools"})
        names = [tool["name"] for tool in listed["result"]["tools"]]
        assert {"verify", "estimate", "compile", "run", "evaluate", "best", "lineage", "diff", "failures",
                "explain", "reference"} <= set(names)
        assert all(tool["input_schema"]["type"] == "object" for tool in listed["result"]["tools"])
        run_evolution(call)
        assert send({"tool": "nonesuch"}) == {"id": None, "ok": False,
                                              "error": "unknown tool 'nonesuch' (tools: %s)" % ", ".join(names)}
        server.stdin.write("not json\n")
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["error"].startswith("not JSON")
    finally:
        server.stdin.close()
        assert server.wait(timeout=30) == 0
