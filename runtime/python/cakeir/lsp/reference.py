"""Hover text for the language's words, taken from the language reference docs/language.md.

Where the reference is: $CAKE_LANGUAGE_REFERENCE when set, else docs/language.md of the source tree this
package lives in, else cakeir/share/cake/docs/language.md (where the wheel installs it).  When none is
readable, hover falls back on the one-line forms and summaries of Ops.def and Intrinsics.def that
vocabulary.py carries, so an installed server without the docs still answers.

How a word is found in the reference (a Markdown file): first a heading that names the word in a code span
(`#### \\`tma.load\\``, `#### \\`wgmma.fence\\`, \\`wgmma.commit\\`, \\`wgmma.wait N\\``): the heading and the
text under it up to the next heading; else the table rows whose first cell starts a code span with the word
(`| \\`arrive MBAR[s];\\` | ...`, `| \\`warp.sum(v)\\` ... |`), each with its table's header, under the heading of
the section holding them.  Keywords, clauses and attributes point to the sections that define them
(SECTIONS).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from . import vocabulary

# Words and the heading (a prefix of its text, after the #s) of the section that defines each: keywords,
# role units, clauses and attributes, which have no heading or table row of their own.
SECTIONS: Dict[str, str] = {
    "target": "3. File structure", "kernel": "4. Kernels", "let": "10.1", "var": "10.2", "shared": "10.3 ",
    "tmem": "10.3a", "mbarrier": "10.4", "barrier": "10.5", "role": "11.1", "elect": "11.2",
    "for": "12. Control flow", "in": "12. Control flow", "step": "12. Control flow", "unroll": "12. Control flow",
    "if": "12. Control flow", "else": "12. Control flow", "return": "12. Control flow", "frag": "5.3",
    "fn": "19. Functions", "type": "4.1",
    "warps": "11.1", "warpgroup": "11.1", "warpgroups": "11.1",
    "signal": "13. Operations", "multicast": "13. Operations", "parity": "13. Operations",
    "expect_tx": "13. Operations", "cta": "13. Operations", "valid": "13. Operations", "accumulate": "13.6",
    "requires": "4.4", "grid": "4.4", "threads": "4.4", "cluster": "4.4", "tma": "4.2", "box": "4.2",
    "stride": "4.2", "align": "10.3 ", "swizzle": "15.", "arrivals": "10.4", "id": "10.5", "regs": "11.1",
}

MAX_LINES = 40


@dataclass
class _Section:
    level: int
    title: str
    lines: List[str]


def reference_candidates() -> List[str]:
    from .._tools import PACKAGE_DIR, REPO_DIR
    paths = []
    if os.environ.get("CAKE_LANGUAGE_REFERENCE"):
        paths.append(os.environ["CAKE_LANGUAGE_REFERENCE"])
    paths.append(os.path.join(REPO_DIR, "docs", "language.md"))
    paths.append(os.path.join(PACKAGE_DIR, "share", "cake", "docs", "language.md"))
    return paths


class Reference:
    """The sections of one language reference file (or none: then only the generated summaries answer)."""

    def __init__(self, text: Optional[str], path: Optional[str] = None) -> None:
        self.path = path
        self.sections: List[_Section] = []
        if text is not None:
            self._split(text)

    @classmethod
    def load(cls) -> "Reference":
        for path in reference_candidates():
            try:
                with open(path, encoding="utf-8") as f:
                    return cls(f.read(), path)
            except OSError:
                continue
        return cls(None)

    def _split(self, text: str) -> None:
        current = _Section(0, "", [])
        in_code = False
        for line in text.split("\n"):
            if line.startswith("```"):
                in_code = not in_code
            m = None if in_code else re.match(r"(#{1,6})\s+(.*)", line)
            if m:
                self.sections.append(current)
                current = _Section(len(m.group(1)), m.group(2).strip(), [])
            else:
                current.lines.append(line)
        self.sections.append(current)

    # -- lookups
    def _by_heading(self, word: str) -> Optional[_Section]:
        code_span = re.compile(r"`%s(?:`| [^`]*`)" % re.escape(word))
        for s in self.sections:
            if s.level >= 3 and code_span.search(s.title):
                return s
        return None

    def _by_title_prefix(self, prefix: str) -> Optional[_Section]:
        for s in self.sections:
            if s.title.startswith(prefix):
                return s
        return None

    def _table_rows(self, word: str, members: bool) -> List[str]:
        follow = r"(?![\w])" if members else r"(?![\w.])"
        first_cell = re.compile(r"`%s%s" % (re.escape(word), follow))
        out: List[str] = []
        for s in self.sections:
            header: List[str] = []
            rows: List[str] = []
            for line in s.lines + [""]:
                if not line.startswith("|"):
                    if rows:
                        out.append("*%s*\n\n%s" % (s.title, "\n".join(header + rows)))
                    header, rows = [], []
                    continue
                if not header:
                    header = [line]
                elif len(header) == 1 and re.match(r"\|[\s:|-]+\|?$", line):
                    header.append(line)
                else:
                    cell = line.split("|")[1] if line.count("|") >= 2 else line
                    if first_cell.search(cell):
                        rows.append(line)
        return out

    @staticmethod
    def _clip(lines: List[str]) -> str:
        while lines and not lines[-1].strip():
            lines = lines[:-1]
        while lines and not lines[0].strip():
            lines = lines[1:]
        if len(lines) > MAX_LINES:
            lines = lines[:MAX_LINES] + ["", "... (docs/language.md has the rest)"]
        return "\n".join(lines)

    def section_text(self, s: _Section) -> str:
        return "**%s**\n\n%s" % (s.title.replace("`", ""), self._clip(s.lines))

    def hover(self, word: str) -> Optional[str]:
        """Markdown for `word` (an operation, intrinsic, keyword, type, builtin...), or None if it is none."""
        parts: List[str] = []
        if word in vocabulary.OPERATIONS:
            archs, form, summary = vocabulary.OPERATIONS[word]
            parts.append("**`%s`** (operation, %s): %s\n\n```cake\n%s\n```" % (word, archs, summary, form))
        elif word in vocabulary.INTRINSICS:
            count, archs, summary = vocabulary.INTRINSICS[word]
            parts.append("**`%s`** (intrinsic, %d argument%s, %s): %s" % (word, count, "" if count == 1 else "s",
                                                                         archs, summary))
        known = (word in vocabulary.OPERATIONS or word in vocabulary.INTRINSICS or word in vocabulary.KEYWORDS
                 or word in vocabulary.SCALAR_TYPES or word in vocabulary.FRAG_KINDS or word in vocabulary.BUILTINS
                 or word in vocabulary.BUILTIN_MEMBERS or word in vocabulary.CLAUSES or word == "sizeof"
                 or word in vocabulary.ATTRIBUTES or word in vocabulary.ROLE_UNITS or word in vocabulary.TARGETS
                 or re.fullmatch(r"(%s)x(2|4|8|16)" % "|".join(vocabulary.SCALAR_TYPES), word) is not None)
        if not known:
            return None
        if self.sections:
            text = self._reference_text(word)
            if text:
                parts.append(text)
        if not parts:
            return None
        return "\n\n---\n\n".join(parts)

    def _reference_text(self, word: str) -> Optional[str]:
        if word in SECTIONS:
            s = self._by_title_prefix(SECTIONS[word])
            if s is not None:
                return self.section_text(s)
        s = self._by_heading(word)
        if s is not None:
            return self.section_text(s)
        vector = re.fullmatch(r"(\w+?)x(2|4|8|16)", word)
        if vector and vector.group(1) in vocabulary.SCALAR_TYPES:
            s = self._by_title_prefix("5.2")
            return self.section_text(s) if s is not None else None
        rows = self._table_rows(word, members=word in vocabulary.BUILTINS)
        if rows:
            return self._clip("\n\n".join(rows).split("\n"))
        return None
