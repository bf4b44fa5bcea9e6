"""Declarations of a .cake buffer and the declaration a name refers to, by a lexical scan.

cakec does not (yet) write out its name resolution, so the language server finds declarations itself, from
the tokens of the buffer, following the scoping rules of docs/language.md 10.6 and 19:

- module scope: `kernel NAME` and `fn NAME` are visible in the whole file (an fn may be called above it);
- kernel / fn scope (from the name to the body's closing brace): compile-time parameters `<BM = 128,
  T: type = bf16>`, parameters `A: bf16[M, K]` (fn parameters `[var|shared] x: T`), and shape variables:
  a name in a tensor parameter's dimensions that nothing else declares is declared by its first use there;
- block scope: `let`, `var`, `shared`, `tmem`, `mbarrier`, `barrier` and `role` are visible from the end
  of their statement (a role from its name, so that its own body can say `math.index`) to the end of the
  enclosing block; a `for` variable in the loop's block.  An inner declaration shadows an outer one.

A name after a `.` is a member (`tid.x`, `math.index`, `b[s].T`) and refers to no declaration.  The scan
needs no complete parse: it keeps a stack of open braces and reads each declaration's few tokens, so it
still works on a buffer with errors elsewhere.  Its limits: names declared by `-D` alone and the
builtin, intrinsic and type names have no declaration in the buffer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Set, Tuple

_TOKEN = re.compile(r"(?P<comment>//[^\n]*)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<number>[0-9][A-Za-z0-9_]*"
                    r"(?:\.[0-9][A-Za-z0-9_]*)?)|(?P<punct><<=|>>=|\.\.|\+:|<-|->|[-+*/%&|^=!<>]=|&&|\|\||<<|>>|"
                    r"[^\sA-Za-z0-9_])|(?P<space>\s+)")

_BLOCK_KEYWORDS = ("let", "var", "shared", "mbarrier", "barrier", "role")


@dataclass
class Token:
    kind: str        # ident, number or punct
    text: str
    start: int
    end: int


@dataclass
class Declaration:
    name: str
    kind: str        # kernel, fn, compile-time parameter, type parameter, parameter, shape variable, let, ...
    start: int       # the name's place in the buffer
    end: int
    text: str        # the declaring text, for hover
    scope_start: int = 0            # where the name becomes visible
    scope_end: int = 1 << 62        # where it stops being visible


def tokenize(text: str) -> List[Token]:
    """The buffer's tokens without comments and whitespace (a lexer as lenient as an editor needs)."""
    tokens = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("comment", "space") or kind is None:
            continue
        tokens.append(Token(kind, m.group(), m.start(), m.end()))
    return tokens


@dataclass
class _Block:
    """An open `{`: the declarations whose scope ends at its closing brace."""
    declarations: List[Declaration] = field(default_factory=list)


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.declarations: List[Declaration] = []

    def tok(self, i: int) -> Optional[Token]:
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def is_punct(self, i: int, text: str) -> bool:
        t = self.tok(i)
        return t is not None and t.kind == "punct" and t.text == text

    def is_ident(self, i: int) -> bool:
        t = self.tok(i)
        return t is not None and t.kind == "ident"

    def matching(self, i: int) -> int:
        """Index of the token that closes the bracket at i (or the last token)."""
        pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
        open_text = self.tokens[i].text
        close_text = pairs[open_text]
        depth = 0
        for j in range(i, len(self.tokens)):
            t = self.tokens[j]
            if t.kind != "punct":
                continue
            if t.text == open_text:
                depth += 1
            elif t.text == close_text:
                depth -= 1
                if depth == 0:
                    return j
            elif open_text == "<" and t.text in ("{", ";"):
                return j - 1
        return len(self.tokens) - 1

    def statement_end(self, i: int) -> int:
        """Index of the `;` (or block-opening `{`) that ends the statement starting at i."""
        depth = 0
        for j in range(i, len(self.tokens)):
            t = self.tokens[j]
            if t.kind != "punct":
                continue
            if t.text in ("(", "["):
                depth += 1
            elif t.text in (")", "]"):
                depth -= 1
            elif depth <= 0 and t.text in (";", "{", "}"):
                return j
        return len(self.tokens) - 1

    def snippet(self, first: int, last: int) -> str:
        text = self.text[self.tokens[first].start:self.tokens[last].end]
        text = " ".join(line.split("//")[0].strip() for line in text.split("\n")).strip()
        text = re.sub(r"\s+", " ", text)
        return text if len(text) <= 240 else text[:237] + "..."

    def declare(self, i: int, kind: str, text: str, scope_start: int, scope_end: int = 1 << 62) -> Declaration:
        t = self.tokens[i]
        d = Declaration(t.text, kind, t.start, t.end, text, scope_start, scope_end)
        self.declarations.append(d)
        return d

    # -- kernels and fns
    def header_entries(self, open_index: int, close_index: int) -> List[Tuple[int, int]]:
        """(first, last) token indices of the comma-separated entries between two brackets."""
        entries, depth, first = [], 0, open_index + 1
        for j in range(open_index + 1, close_index):
            t = self.tokens[j]
            if t.kind == "punct" and t.text in ("(", "[", "<"):
                depth += 1
            elif t.kind == "punct" and t.text in (")", "]", ">"):
                depth -= 1
            elif t.kind == "punct" and t.text == "," and depth == 0:
                entries.append((first, j - 1))
                first = j + 1
        if first <= close_index - 1:
            entries.append((first, close_index - 1))
        return entries

    def function(self, i: int) -> int:
        """`kernel NAME ...` or `fn NAME ...` at token i; returns the index of the body's `{`."""
        keyword = self.tokens[i].text
        if not self.is_ident(i + 1):
            return i + 1
        j = i + 2
        header_end = self.statement_end(i)       # the body's `{` (or a `;` / `}` in a broken header)
        scope_start = self.tokens[i + 1].start
        local: List[Declaration] = []
        ct_names = set()
        if keyword == "kernel" and self.is_punct(j, "<"):
            close = self.matching(j)
            for first, last in self.header_entries(j, close):
                if self.is_ident(first):
                    kind = "type parameter" if self.is_punct(first + 1, ":") else "compile-time parameter"
                    local.append(self.declare(first, kind, self.snippet(first, last), scope_start))
                    ct_names.add(self.tokens[first].text)
            j = close + 1
        if self.is_punct(j, "("):
            close = self.matching(j)
            params = self.header_entries(j, close)
            for first, last in params:
                name = first + 1 if self.tok(first) and self.tokens[first].text in ("var", "shared") else first
                if self.is_ident(name) and self.is_punct(name + 1, ":"):
                    kind = "parameter" if keyword == "kernel" else "fn parameter"
                    local.append(self.declare(name, kind, self.snippet(first, last), scope_start))
            if keyword == "kernel":
                declared = ct_names | {self.tokens[first].text for first, _ in params if self.is_ident(first)}
                for first, last in params:
                    local.extend(self.shape_variables(first, last, declared, scope_start))
        body = header_end if self.is_punct(header_end, "{") else -1
        text = self.snippet(i, header_end - 1 if body >= 0 else header_end)
        self.declare(i + 1, keyword, text, 0)
        if body >= 0:
            end = self.tokens[self.matching(body)].end
            for local_decl in local:
                local_decl.scope_end = end
        return header_end

    def shape_variables(self, first: int, last: int, declared: Set[str], scope_start: int) -> List[Declaration]:
        """Names in the dimensions of the parameter type between tokens first..last not declared otherwise."""
        found = []
        j = first + 2                              # NAME : TYPE
        while j <= last and not self.is_punct(j, "["):
            j += 1
        while j <= last and self.is_punct(j, "["):
            close = self.matching(j)
            for k in range(j + 1, close):
                t = self.tokens[k]
                if (t.kind == "ident" and t.text not in declared and not self.is_punct(k - 1, ".")
                        and not self.is_punct(k + 1, "(")):
                    declared.add(t.text)
                    found.append(self.declare(k, "shape variable", self.snippet(first, last), scope_start))
            j = close + 1
        return found

    # -- the whole buffer
    def run(self) -> List[Declaration]:
        blocks: List[_Block] = []
        pending_loop: List[Declaration] = []      # for-variables waiting for their block's `{`
        i = 0
        while i < len(self.tokens):
            t = self.tokens[i]
            if t.kind == "ident" and t.text in ("kernel", "fn") and not blocks:
                i = self.function(i)
                continue
            if t.kind == "punct" and t.text == "{":
                block = _Block()
                for d in pending_loop:
                    d.scope_start = t.start
                    block.declarations.append(d)
                pending_loop = []
                blocks.append(block)
            elif t.kind == "punct" and t.text == "}":
                if blocks:
                    closed = blocks.pop()
                    for d in closed.declarations:
                        d.scope_end = t.end
            elif t.kind == "ident" and blocks and not self.is_punct(i - 1, "."):
                self.statement(i, t, blocks[-1], pending_loop)
            i += 1
        return self.declarations

    def statement(self, i: int, t: Token, block: _Block, pending_loop: List[Declaration]) -> None:
        starts_statement = i == 0 or self.tokens[i - 1].text in (";", "{", "}")
        if not starts_statement:
            return
        if t.text in _BLOCK_KEYWORDS or (t.text == "tmem" and self.is_punct(i + 2, ":")):
            if not self.is_ident(i + 1):
                return
            end = self.statement_end(i)
            stop = end if self.tokens[end].text == ";" else end - 1
            visible = self.tokens[i + 1].start if t.text == "role" else self.tokens[end].end
            block.declarations.append(self.declare(i + 1, t.text, self.snippet(i, stop), visible))
        elif t.text == "for" and self.is_ident(i + 1):
            end = self.statement_end(i)
            d = self.declare(i + 1, "loop variable", self.snippet(i, end - 1), self.tokens[i + 1].end)
            pending_loop.append(d)


def declarations(text: str) -> List[Declaration]:
    """Every declaration of the buffer, in source order of the scan."""
    return _Scanner(text).run()


def _after_member_dot(text: str, start: int) -> bool:
    """Whether the name starting at `start` follows a member access dot (`x.name`, not the range `0..name`)."""
    return start > 0 and text[start - 1] == "." and not (start > 1 and text[start - 2] == ".")


def name_at(text: str, offset: int) -> Optional[Tuple[str, int, int]]:
    """(dotted name, start, end) of the name at `offset`: `tma.load`, `shfl.xor`, `math.index`, `a`."""
    if offset < 0 or offset > len(text):
        return None
    word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end < 0 else line_end
    comment = text.find("//", line_start, line_end)
    if 0 <= comment <= offset:
        return None
    for m in word.finditer(text, line_start, line_end):
        if m.start() <= offset <= m.end():
            if _after_member_dot(text, m.start()):         # `.T` after a bracket: a member
                return None
            return m.group(), m.start(), m.end()
    return None


def identifier_at(text: str, offset: int) -> Optional[Tuple[str, int, int, bool]]:
    """(identifier, start, end, is_member) of the single identifier at `offset`."""
    for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text[max(0, offset - 256):offset + 256]):
        start = m.start() + max(0, offset - 256)
        end = start + len(m.group())
        if start <= offset <= end:
            return m.group(), start, end, _after_member_dot(text, start)
    return None


def definition(decls: List[Declaration], name: str, offset: int) -> Optional[Declaration]:
    """The declaration that `name`, used at `offset`, refers to: the innermost one visible there."""
    best: Optional[Declaration] = None
    for d in decls:
        if d.name != name:
            continue
        if d.start <= offset <= d.end:
            return d                                   # on the declaration itself
        if d.scope_start <= offset < d.scope_end and (best is None or d.scope_start >= best.scope_start):
            best = d
    return best
