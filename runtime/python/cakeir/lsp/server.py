"""The CAKE language server: pygls wiring of diagnostics, quick fixes, hover and go-to-definition.

    python -m cakeir.lsp            (or the console script cake-lsp) speaks LSP on stdin / stdout

What each request does:
  didOpen, didSave      run cakec with the verifier on the buffer and publish its diagnostics (diagnostics.py)
  didChange             the same after a pause in typing (`debounce` seconds), without the verifier unless
                        `verifyOnChange` is set; a newer change cancels (kills) the run still going
  didClose              clears the file's diagnostics
  codeAction            a quick fix per diagnostic with cakec fix-its in the requested range
  hover                 an operation, intrinsic, keyword, type or builtin: its text from docs/language.md
                        (reference.py); a declared name: its declaration (symbols.py); inside a
                        diagnostic's range, also what `cakec --explain CODE` says about it
  definition            the declaration of the name under the cursor (symbols.py: a lexical scan)

Settings, as the client's initializationOptions (all optional):
  {"cakec": "/path/to/cakec", "arguments": ["--arch", "sm_90a", "-D", "BN=128"], "verifyOnChange": false,
   "debounce": 0.3}
cakec is otherwise found as cakeir finds it (_tools.find_cakec: $CAKE_CAKEC, the package's own, the source
tree's build*/, PATH).  When there is none the server still answers hover and definition and says once, in
a window message, why there are no diagnostics.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from . import diagnostics, symbols
from .hover import hover_markdown
from .positions import offset_of, position_of
from .reference import Reference

VERSION = "0.1.0"


@dataclass
class Settings:
    cakec: Optional[str] = None
    arguments: List[str] = field(default_factory=list)
    verify_on_change: bool = False
    debounce: float = 0.3

    @classmethod
    def from_options(cls, options: Any) -> "Settings":
        s = cls()
        if isinstance(options, dict):
            if isinstance(options.get("cakec"), str):
                s.cakec = options["cakec"]
            if isinstance(options.get("arguments"), list):
                s.arguments = [str(a) for a in options["arguments"]]
            s.verify_on_change = bool(options.get("verifyOnChange", False))
            if isinstance(options.get("debounce"), (int, float)):
                s.debounce = max(0.0, float(options["debounce"]))
        return s


class CakeLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("cake-lsp", VERSION)
        self.settings = Settings()
        self.findings: Dict[str, Tuple[Optional[int], List[diagnostics.Finding]]] = {}   # uri -> (version, ..)
        self.checks: Dict[str, "asyncio.Task[None]"] = {}
        self.reference = Reference.load()
        self.told_no_cakec = False
        self.explanations: Dict[str, Optional[str]] = {}

    @property
    def encoding(self) -> str:
        return str(self.workspace.position_encoding or "utf-16")

    def cakec(self) -> Optional[str]:
        from .._tools import find_cakec
        try:
            return find_cakec(self.settings.cakec)
        except FileNotFoundError as e:
            if not self.told_no_cakec:
                self.told_no_cakec = True
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                                 message="CAKE: no diagnostics: %s" % e))
            return None

    def schedule_check(self, uri: str, verify: bool, delay: float) -> None:
        previous = self.checks.pop(uri, None)
        if previous is not None:
            previous.cancel()
        self.checks[uri] = asyncio.get_running_loop().create_task(self.check(uri, verify, delay))

    async def check(self, uri: str, verify: bool, delay: float) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        cakec = self.cakec()
        if cakec is None:
            return
        document = self.workspace.get_text_document(uri)
        text, version = document.source, document.version
        command = diagnostics.cakec_command(cakec, verify, self.settings.arguments)
        try:
            items = await diagnostics.run_cakec(command, text)
            findings = diagnostics.to_findings(items, uri, text, self.encoding)
        except diagnostics.CakecFailed as e:
            self.log_error(str(e))
            return
        except asyncio.TimeoutError:
            self.log_error("cakec took too long on %s" % uri)
            return
        except Exception as e:   # noqa: BLE001 - a task's exception would otherwise go unseen
            self.log_error("checking %s failed: %r" % (uri, e))
            return
        self.findings[uri] = (version, findings)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[f.diagnostic for f in findings]))

    def explanations_at(self, uri: str, position: types.Position) -> List[str]:
        """`cakec --explain` of each current diagnostic whose range holds `position` (once per code)."""
        version, findings = self.findings.get(uri, (None, []))
        if version != self.workspace.get_text_document(uri).version:
            return []
        out: List[str] = []
        for f in findings:
            code = f.diagnostic.code
            if not isinstance(code, str) or not diagnostics.contains(f.diagnostic.range, position):
                continue
            if code not in self.explanations:
                cakec = self.cakec()
                self.explanations[code] = diagnostics.explain(cakec, code) if cakec else None
            text = self.explanations[code]
            if text and text not in out:
                out.append(text)
        return out

    def log_error(self, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message="CAKE: " + message))

    def offset(self, uri: str, position: types.Position) -> Tuple[str, int]:
        text = self.workspace.get_text_document(uri).source
        return text, offset_of(text, position.line, position.character, self.encoding)

    def range_of(self, text: str, start: int, end: int) -> types.Range:
        sl, sc = position_of(text, start, self.encoding)
        el, ec = position_of(text, end, self.encoding)
        return types.Range(start=types.Position(line=sl, character=sc), end=types.Position(line=el, character=ec))


def create_server() -> CakeLanguageServer:
    """A server with every feature registered (main() starts it on stdio)."""
    server = CakeLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: CakeLanguageServer, params: types.InitializeParams) -> None:
        ls.settings = Settings.from_options(params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CakeLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule_check(params.text_document.uri, verify=True, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CakeLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule_check(params.text_document.uri, verify=ls.settings.verify_on_change, delay=ls.settings.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: CakeLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule_check(params.text_document.uri, verify=True, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CakeLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.checks.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.findings.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    def code_action(ls: CakeLanguageServer, params: types.CodeActionParams) -> List[types.CodeAction]:
        uri = params.text_document.uri
        version, findings = ls.findings.get(uri, (None, []))
        if version != ls.workspace.get_text_document(uri).version:
            return []          # the buffer changed since: the fix-its' places are stale
        return diagnostics.code_actions(uri, findings, params.range, params.context.only)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: CakeLanguageServer, params: types.HoverParams) -> Optional[types.Hover]:
        uri = params.text_document.uri
        text, offset = ls.offset(uri, params.position)
        parts = ["```\n%s\n```" % e for e in ls.explanations_at(uri, params.position)]
        found = hover_markdown(text, offset, ls.reference)
        if found is None and not parts:
            return None
        if found is not None:
            parts.append(found[0])
        markdown = "\n\n---\n\n".join(parts)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
                           range=ls.range_of(text, found[1], found[2]) if found is not None else None)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: CakeLanguageServer, params: types.DefinitionParams) -> Optional[types.Location]:
        uri = params.text_document.uri
        text, offset = ls.offset(uri, params.position)
        ident = symbols.identifier_at(text, offset)
        if ident is None or ident[3]:
            return None
        decl = symbols.definition(symbols.declarations(text), ident[0], offset)
        if decl is None:
            return None
        return types.Location(uri=uri, range=ls.range_of(text, decl.start, decl.end))

    return server


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    create_server().start_io()
