"""The language server cakeir.lsp, driven over stdio by a scripted LSP client (pygls's LanguageClient).

The client opens a kernel whose named barrier waits for 32 threads while its role has 64: cakec's verifier
reports E0640 with notes at the sync and the declaration and a fix-it `threads(64)`.  The test checks the
published diagnostic and the hover over it (cakec --explain), asks for code actions, applies the quick fix,
sends the edit and a save, and checks that the diagnostics clear; then it hovers an operation and a declared
name and goes to two definitions.
A second server, given no cakec, says so in a window message and still answers hover.  Skipped without
pygls (utils/common.sh installs it into the test venv when it can) or without cakec."""

import asyncio
import os
import sys

import pytest

pytest.importorskip("pygls", reason="pygls is not installed (pip install 'pygls>=2,<3')")

from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "runtime", "python"))
from cakeir.lsp import diagnostics  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNEL = """target sm_80;

// The two warps of role `copy` meet at a named barrier, then copy a row of X to Y.
kernel rows<THREADS = 96>(X: f32[R, 64], Y: f32[R, 64]) requires(R >= 1) grid(R) threads(THREADS) {
  barrier done id(1) threads(32);
  let row = i32(block.x);
  role copy = warps(0..2) {
    let t = i32(tid.x);
    sync done;
    Y[row, t] = X[row, t];
  }
}
"""
URI = "file:///tmp/cake-lsp-test/rows.cake"   # never read or written: the server works on the buffer


def apply_edits(text, edits):
    lines = text.split("\n")

    def offset(p):
        return sum(len(l) + 1 for l in lines[:p.line]) + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def position_of(text, needle, nth=0, delta=0):
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += delta
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


async def close(client):
    """Waits for the server to exit; kills it when a failed test never told it to."""
    server = client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(server.wait(), 5)
        except asyncio.TimeoutError:
            server.kill()
    await client.stop()


async def session(cakec):
    client = LanguageClient("cake-lsp-test", "1")
    published = asyncio.Queue()
    errors = []
    client.report_server_error = lambda error, source: errors.append(error)   # pygls drops them otherwise

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params):
        published.put_nowait(params)

    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "runtime", "python"))
    await client.start_io(sys.executable, "-m", "cakeir.lsp", env=env)
    try:
        await asyncio.wait_for(client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            initialization_options={"cakec": cakec, "debounce": 0})), 20)
        client.initialized(types.InitializedParams())
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="cake", version=1, text=KERNEL)))
        first = await asyncio.wait_for(published.get(), 20)
        assert not errors, errors

        # the diagnostic: code, range, notes, hint
        assert first.uri == URI
        [diag] = first.diagnostics
        assert diag.code == "E0640" and diag.source == "cakec"
        assert diag.severity == types.DiagnosticSeverity.Error
        assert diag.range.start == position_of(KERNEL, "sync done")
        assert diag.range.end == position_of(KERNEL, "sync done", delta=len("sync done;"))
        assert "waits for 32 threads, but 64 threads reach it" in diag.message
        assert "hint: " in diag.message
        notes = {(n.location.range.start.line, n.message) for n in diag.related_information}
        assert (position_of(KERNEL, "sync done").line, "role 'copy': warps 0..2 (64 threads) reach this sync") in notes
        assert (position_of(KERNEL, "done id").line, "declared here with threads(32)") in notes

        # hover over the diagnostic: cakec's explanation of its code, then the operation's reference text
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI), position=position_of(KERNEL, "sync done"))), 20)
        assert hover.contents.value.startswith("```\nE0640 (BarrierCountMismatch, error)")
        assert "bar.sync" in hover.contents.value

        # the fix-it as a quick fix
        actions = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI), range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]))), 20)
        [action] = actions
        assert action.kind == types.CodeActionKind.QuickFix
        [edit] = action.edit.changes[URI]
        assert edit.new_text == "64" and edit.range.start == position_of(KERNEL, "32)")
        fixed = apply_edits(KERNEL, [edit])
        assert "threads(64);" in fixed
        client.text_document_did_change(types.DidChangeTextDocumentParams(    # as an editor sends it: the range
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)]))
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=URI)))
        cleared = await asyncio.wait_for(published.get(), 20)
        assert list(cleared.diagnostics) == [], cleared.diagnostics

        # hover: an operation (its reference text) and a declared name (its declaration)
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI), position=position_of(fixed, "sync done", delta=2))), 20)
        assert "named barrier" in hover.contents.value and "bar.sync" in hover.contents.value
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI), position=position_of(fixed, "row, t]", delta=1))), 20)
        assert "let row = i32(block.x);" in hover.contents.value

        # go to definition: a let and a barrier
        for name, use, declaration in [("row", "row, t] =", "row = i32"), ("done", "done;", "done id")]:
            location = await asyncio.wait_for(client.text_document_definition_async(types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=URI), position=position_of(fixed, use))), 20)
            assert location.uri == URI
            assert location.range.start == position_of(fixed, declaration)
            assert location.range.end == position_of(fixed, declaration, delta=len(name))
        await asyncio.wait_for(client.shutdown_async(None), 20)
        client.exit(None)
    finally:
        await close(client)


def test_language_server_over_stdio(cakec_only):
    asyncio.run(asyncio.wait_for(session(cakec_only), 60))


async def session_without_cakec():
    client = LanguageClient("cake-lsp-test", "1")
    messages = asyncio.Queue()

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def on_message(params):
        messages.put_nowait(params)

    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "runtime", "python"))
    await client.start_io(sys.executable, "-m", "cakeir.lsp", env=env)
    try:
        await asyncio.wait_for(client.initialize_async(types.InitializeParams(
            capabilities=types.ClientCapabilities(), initialization_options={"cakec": "/nonexistent/cakec"})), 20)
        client.initialized(types.InitializedParams())
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=URI, language_id="cake", version=1, text=KERNEL)))
        message = await asyncio.wait_for(messages.get(), 20)
        assert message.type == types.MessageType.Warning and "/nonexistent/cakec" in message.message
        hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI), position=position_of(KERNEL, "sync done"))), 20)
        assert "named barrier" in hover.contents.value
        await asyncio.wait_for(client.shutdown_async(None), 20)
        client.exit(None)
    finally:
        await close(client)


def test_without_cakec_the_server_says_so_and_still_hovers():
    asyncio.run(asyncio.wait_for(session_without_cakec(), 60))


def test_cakec_json_to_lsp():
    """Byte columns on a line with non-ASCII text, notes, a diagnostic without a place, quick-fix titles."""
    text = "target sm_80; // caf\u00e9\nlet x = indx;\n"
    items = [
        {"code": "E0301", "severity": "error", "file": "<stdin>", "line": 2, "column": 9, "end_line": 2,
         "end_column": 13, "message": "use of undeclared name 'indx'",
         "notes": [{"file": "<stdin>", "line": 1, "column": 18, "end_line": 1, "end_column": 23, "message": "here"},
                   {"file": None, "line": 0, "column": 0, "end_line": 0, "end_column": 0, "message": "elsewhere"}],
         "fixits": [{"file": "<stdin>", "line": 2, "column": 9, "end_line": 2, "end_column": 13,
                     "replacement": "idx"}], "hint": "did you mean 'idx'?"},
        {"code": "E0506", "severity": "fatal", "file": None, "line": 0, "column": 0, "end_line": 0, "end_column": 0,
         "message": "bad option", "notes": [], "fixits": [], "hint": ""},
    ]
    first, second = diagnostics.to_findings(items, URI, text)
    d = first.diagnostic
    assert (d.range.start.line, d.range.start.character, d.range.end.character) == (1, 8, 12)
    assert d.message == "use of undeclared name 'indx'\nnote: elsewhere\nhint: did you mean 'idx'?"
    [note] = d.related_information
    assert (note.location.range.start.character, note.location.range.end.character) == (17, 21)   # "café": 5 bytes, 4 units
    assert d.data == {"fixits": [items[0]["fixits"][0]]}
    assert second.diagnostic.range.start == types.Position(line=0, character=0)
    assert second.diagnostic.severity == types.DiagnosticSeverity.Error and not second.edits
    [action] = diagnostics.code_actions(URI, [first, second], d.range)
    assert action.title == "Change to 'idx' [E0301]"
    assert diagnostics.code_actions(URI, [first], d.range, only=["refactor"]) == []
    assert diagnostics.code_actions(URI, [first], types.Range(start=types.Position(line=0, character=0),
                                                              end=types.Position(line=0, character=3))) == []
