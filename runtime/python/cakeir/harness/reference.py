"""The language reference by construct: the sections of docs/language.md whose heading names a construct
(docs/harness.md, section "Agent tools", tool `reference`).

The reference is split at its Markdown headings; a section runs to the next heading of the same or a higher
level, so `## 13. Operations` holds its subsections.  A query matches, best first: a heading whose
backquoted names include it exactly (`tma.load` finds "#### `tma.load`"), a heading whose title contains it
as a word, then a heading containing it anywhere.  The file is docs/language.md of the source tree this
package lives in ($CAKE_LANGUAGE_REFERENCE overrides); an installed wheel carries no docs, and then the tool
says so."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Optional

from .. import _tools

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


@dataclass
class Section:
    level: int
    title: str
    text: str


def reference_path() -> Optional[str]:
    """docs/language.md, or None when it is not there."""
    path = os.environ.get("CAKE_LANGUAGE_REFERENCE") or os.path.join(_tools.REPO_DIR, "docs", "language.md")
    return path if os.path.isfile(path) else None


def split_sections(markdown: str) -> List[Section]:
    """Every heading's section (its heading line included), in document order."""
    lines = markdown.splitlines(keepends=True)
    headings = []
    fenced = False
    for index, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            headings.append((index, len(match.group(1)), match.group(2)))
    sections = []
    for position, (start, level, title) in enumerate(headings):
        end = len(lines)
        for later_start, later_level, _ in headings[position + 1:]:
            if later_level <= level:
                end = later_start
                break
        sections.append(Section(level, title, "".join(lines[start:end])))
    return sections


def find_sections(sections: List[Section], query: str) -> List[Section]:
    """The sections matching query, best match first (see the module's docstring)."""
    wanted = query.strip().lower()
    if not wanted:
        return []
    exact, word, anywhere = [], [], []
    for section in sections:
        title = section.title.lower()
        names = [name.strip() for quoted in re.findall(r"`([^`]*)`", title) for name in quoted.split(",")]
        if wanted in names or any(name.split()[:1] == [wanted] for name in names if name):
            exact.append(section)
        elif re.search(r"(?<![\w.])%s(?![\w.])" % re.escape(wanted), title):
            word.append(section)
        elif wanted in title:
            anywhere.append(section)
    return exact + word + anywhere


def lookup(query: str, max_chars: int = 12000) -> dict:
    """{"path", "matches": [titles], "section": text of the best match (cut at max_chars)}; with an empty
    query, "headings": the table of contents."""
    path = reference_path()
    if path is None:
        raise FileNotFoundError("docs/language.md is not available (the harness reads it from the source tree; "
                                "set CAKE_LANGUAGE_REFERENCE to its path)")
    with open(path, encoding="utf-8") as handle:
        sections = split_sections(handle.read())
    if not query.strip():
        return {"path": path, "headings": ["%s %s" % ("#" * s.level, s.title) for s in sections]}
    found = find_sections(sections, query)
    result: dict = {"path": path, "matches": [s.title for s in found]}
    if found:
        text = found[0].text
        result["section"] = text if len(text) <= max_chars else text[:max_chars] + "\n... (cut at %d characters)\n" % max_chars
    return result
