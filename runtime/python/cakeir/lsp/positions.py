"""Conversions between the three ways a place in a .cake buffer is named.

cakec names a place by 1-based line and 1-based *byte* column (the source is read as bytes); the Language
Server Protocol by 0-based line and 0-based character counted in the code units of the position encoding
agreed at initialisation ("utf-16", the protocol's default, or "utf-8" / "utf-32" when the client offers
them); the server's own scans (symbols.py) by an index into the buffer's Python string.  CAKE source is
ASCII outside `//` comments, so the columns differ only on lines whose comments hold other text, but the
conversions are exact everywhere: each goes through the line's text.  Lines are split at "\\n" only, as
cakec and LSP clients count them (a "\\r" before it stays part of the line).
"""

from __future__ import annotations

from typing import List, Tuple

UTF16 = "utf-16"


def split_lines(text: str) -> List[str]:
    return text.split("\n")


def units(segment: str, encoding: str = UTF16) -> int:
    """The length of `segment` in code units of `encoding` (utf-8, utf-16 or utf-32)."""
    if encoding == "utf-8":
        return len(segment.encode("utf-8", errors="surrogatepass"))
    if encoding == "utf-32":
        return len(segment)
    return len(segment.encode("utf-16-le", errors="surrogatepass")) // 2


def column_from_byte_column(line: str, byte_column: int, encoding: str = UTF16) -> int:
    """The column, in `encoding`'s units, of the place `byte_column` bytes (UTF-8) from the line's start."""
    prefix = line.encode("utf-8", errors="surrogatepass")[:max(byte_column, 0)].decode("utf-8", errors="ignore")
    return units(prefix, encoding)


def index_from_column(line: str, column: int, encoding: str = UTF16) -> int:
    """The string index in `line` of the column `column` in `encoding`'s units (clamped to the line's end)."""
    count = 0
    for index, ch in enumerate(line):
        if count >= column:
            return index
        count += units(ch, encoding)
    return len(line)


def offset_of(text: str, line: int, column: int, encoding: str = UTF16) -> int:
    """The string index in `text` of an LSP position."""
    lines = split_lines(text)
    line = min(max(line, 0), len(lines) - 1)
    return sum(len(l) + 1 for l in lines[:line]) + index_from_column(lines[line], column, encoding)


def position_of(text: str, offset: int, encoding: str = UTF16) -> Tuple[int, int]:
    """The LSP position (line, column in `encoding`'s units) of string index `offset` in `text`."""
    offset = min(max(offset, 0), len(text))
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    return line, units(text[line_start:offset], encoding)
