"""What hovering a place of a .cake buffer shows: reference text for the language's words, declarations
for the buffer's names.

The word under the cursor is read twice: as a dotted name (`tma.load`, `cp.async.wait`, `warp.sum`,
`tid.x`) and as the single identifier under the cursor.  A single identifier that the buffer declares
shows its declaration (symbols.py; a local may not reuse a reserved word, so a declared name is never an
operation); otherwise the dotted name, then the identifier, is looked up in the language reference
(reference.py: operations, intrinsics, keywords, types, fragment kinds, builtins, clauses).  A member
(`math.index`'s `index`, `.T`) shows nothing of its own.
"""

from __future__ import annotations

from typing import Optional, Tuple

from . import symbols
from .reference import Reference


def _declaration(text: str, name: str, offset: int) -> Optional[str]:
    decl = symbols.definition(symbols.declarations(text), name, offset)
    if decl is None:
        return None
    line = text.count("\n", 0, decl.start) + 1
    return "```cake\n%s\n```\n%s `%s`, line %d" % (decl.text, decl.kind, decl.name, line)


def hover_markdown(text: str, offset: int, reference: Reference) -> Optional[Tuple[str, int, int]]:
    """(Markdown, start, end of the word) for the place `offset` of `text`, or None."""
    dotted = symbols.name_at(text, offset)
    ident = symbols.identifier_at(text, offset)
    name = ident[0] if ident is not None and not ident[3] else None   # not a member
    if ident is not None and name is not None and (dotted is None or dotted[0] == name):
        markdown = _declaration(text, name, offset)
        if markdown is not None:
            return markdown, ident[1], ident[2]
    if dotted is not None:
        markdown = reference.hover(dotted[0])
        if markdown is not None:
            return markdown, dotted[1], dotted[2]
    if ident is not None and name is not None:
        markdown = _declaration(text, name, offset) or reference.hover(name)
        if markdown is not None:
            return markdown, ident[1], ident[2]
    return None
