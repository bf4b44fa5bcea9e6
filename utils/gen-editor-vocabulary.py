#!/usr/bin/env python3
"""Generates the editor support's word lists from the compiler's own tables.

    utils/gen-editor-vocabulary.py           rewrites the generated files
    utils/gen-editor-vocabulary.py --check   exits 1 (naming the stale files) when a generated file differs

Outputs:
  editors/textmate/cake.tmLanguage.json       the TextMate grammar (VS Code and other TextMate-grammar editors)
  runtime/python/cakeir/lsp/vocabulary.py     the same words for the language server (hover, name classes)

How: each word list is read from the table in the compiler source that defines it: operations from
src/frontend/Ops.def (OP lines), intrinsics from src/frontend/Intrinsics.def (INTRINSIC lines), keywords from
src/frontend/TokenKinds.def (KEYWORD lines), scalar types and fragment kinds from src/frontend/Types.cpp
(kScalars, kFragKinds), builtin values from src/frontend/Builtins.cpp (kMembers, kPlain), clause names from
src/frontend/Ops.cpp (isClauseName), attribute names from the collectAttrs calls of src/frontend/Sema*.cpp and
targets from src/support/Arch.cpp (kNames).  The few words that live in parser code rather than in a table
(role units, `tmem`, `type`, `sizeof`, the vector suffixes) are listed below.  The grammar's rules (which
regex gives which scope) are written here; the lists are filled into them, longest name first, so that
`tma.store.commit` is one token and not `tma.store` followed by `.commit`.  The regexes use only syntax that
Oniguruma (TextMate's engine) and Python's re read alike; tests/python/test_editors.py checks that.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRAMMAR_PATH = os.path.join(ROOT, "editors", "textmate", "cake.tmLanguage.json")
VOCABULARY_PATH = os.path.join(ROOT, "runtime", "python", "cakeir", "lsp", "vocabulary.py")

# Words the parser knows by spelling (src/frontend/ParseStmt.cpp, Parser.cpp) rather than from a table.
ROLE_UNITS = ["warp", "warps", "warpgroup", "warpgroups"]
CONTEXTUAL_KEYWORDS = ["tmem", "type"]          # `tmem NAME: ...` declarations; `<T: type = bf16>` parameters
TYPE_FUNCTIONS = ["sizeof"]
VECTOR_LANES = ["2", "4", "8", "16"]            # f16x2 .. f8e4m3x16 (docs/language.md 5.2)

ARCH_TEXT = {"kAllArchs": "all", "kSM80Up": "sm_80+", "kSM90Up": "sm_90+", "kSM90aOnly": "sm_90a only",
             "kSM100aOnly": "sm_100a only"}

_C_STRING = r'"((?:[^"\\]|\\.)*)"'


def _read(rel: str) -> str:
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\\\", "\\")


def _arch(name: str, where: str) -> str:
    if name not in ARCH_TEXT:
        raise SystemExit("gen-editor-vocabulary: unknown arch set %s in %s (add it to ARCH_TEXT)" % (name, where))
    return ARCH_TEXT[name]


def read_operations() -> List[Tuple[str, str, str, str]]:
    """(spelling, archs, form, summary) of every OP line of Ops.def."""
    pattern = re.compile(r'^OP\(\s*\w+\s*,\s*%s\s*,\s*(\w+)\s*,\s*%s\s*,\s*%s\s*\)' % (_C_STRING, _C_STRING, _C_STRING),
                         re.M)
    ops = [(m.group(1), _arch(m.group(2), "Ops.def"), _unescape(m.group(3)), _unescape(m.group(4)))
           for m in pattern.finditer(_read("src/frontend/Ops.def"))]
    if not ops:
        raise SystemExit("gen-editor-vocabulary: no OP lines found in src/frontend/Ops.def")
    return ops


def read_intrinsics() -> List[Tuple[str, int, str, str]]:
    """(spelling, argument count, archs, summary) of every INTRINSIC line of Intrinsics.def."""
    pattern = re.compile(r'^INTRINSIC\(\s*\w+\s*,\s*%s\s*,\s*(\d+)\s*,\s*\w+\s*,\s*(\w+)\s*,\s*%s\s*\)'
                         % (_C_STRING, _C_STRING), re.M)
    found = [(m.group(1), int(m.group(2)), _arch(m.group(3), "Intrinsics.def"), _unescape(m.group(4)))
             for m in pattern.finditer(_read("src/frontend/Intrinsics.def"))]
    if not found:
        raise SystemExit("gen-editor-vocabulary: no INTRINSIC lines found in src/frontend/Intrinsics.def")
    return found


def _array_strings(source: str, array: str, rel: str) -> List[str]:
    """The first string of each entry of the C++ array `array` (its initializer up to the closing `};`)."""
    m = re.search(r'\b%s\[\]\s*=\s*\{(.*?)\};' % re.escape(array), source, re.S)
    if not m:
        raise SystemExit("gen-editor-vocabulary: array %s not found in %s" % (array, rel))
    body = m.group(1)
    if "{" in body:   # an array of structs: the first string of each {..}
        return [re.search(_C_STRING, entry).group(1) for entry in re.findall(r'\{([^{}]*)\}', body)
                if re.search(_C_STRING, entry)]
    return re.findall(_C_STRING, body)


def read_keywords() -> List[str]:
    return re.findall(r'^KEYWORD\(\s*\w+\s*,\s*"(\w+)"\s*\)', _read("src/frontend/TokenKinds.def"), re.M)


def read_scalar_types() -> List[str]:
    return _array_strings(_read("src/frontend/Types.cpp"), "kScalars", "Types.cpp")


def read_frag_kinds() -> List[str]:
    return _array_strings(_read("src/frontend/Types.cpp"), "kFragKinds", "Types.cpp")


def read_builtins() -> Tuple[List[str], List[str]]:
    """(namespaces with their members as 'ns.member', plain builtin names)."""
    source = _read("src/frontend/Builtins.cpp")
    members = []
    for entry in re.findall(r'\{([^{}]*)\}', re.search(r'kMembers\[\]\s*=\s*\{(.*?)\};', source, re.S).group(1)):
        strings = re.findall(_C_STRING, entry)
        if len(strings) >= 3:
            members.append(strings[2])
    plain = _array_strings(source, "kPlain", "Builtins.cpp")
    return members, plain


def read_clauses() -> List[str]:
    m = re.search(r'bool isClauseName\(.*?\{(.*?)\n\}', _read("src/frontend/Ops.cpp"), re.S)
    if not m:
        raise SystemExit("gen-editor-vocabulary: isClauseName not found in src/frontend/Ops.cpp")
    return re.findall(r'name == "(\w+)"', m.group(1))


def read_attributes() -> List[str]:
    names: List[str] = []
    folder = os.path.join(ROOT, "src", "frontend")
    for entry in sorted(os.listdir(folder)):
        if entry.startswith("Sema") and entry.endswith(".cpp"):
            for group in re.findall(r'collectAttrs\([^;]*?\{([^{}]*)\}', _read(os.path.join("src", "frontend", entry))):
                names.extend(re.findall(_C_STRING, group))
    names.append("box")   # the argument name of tma(box=[..], swizzle=..)
    return sorted(set(names))


def read_targets() -> List[str]:
    return _array_strings(_read("src/support/Arch.cpp"), "kNames", "Arch.cpp")


def _alternation(words: List[str]) -> str:
    """A regex alternation of `words`, longest first, dots escaped."""
    return "|".join(re.escape(w).replace("\\_", "_") for w in sorted(set(words), key=lambda w: (-len(w), w)))


def _word(words: List[str]) -> str:
    """Matches one of `words` as a whole dotted name (not part of a longer name or member access)."""
    return r"(?<![\w.])(?:%s)(?![\w.])" % _alternation(words)


def build_grammar() -> Dict[str, object]:
    ops = [o[0] for o in read_operations()]
    intrinsics = [i[0] for i in read_intrinsics()]
    keywords = read_keywords()
    scalars = read_scalar_types()
    members, plain = read_builtins()
    namespaces = sorted({m.split(".")[0] for m in members})
    declaration_keywords = [k for k in ["target", "kernel", "fn", "let", "var", "shared", "mbarrier", "barrier", "role"]
                            if k in keywords]
    control_keywords = [k for k in keywords if k not in declaration_keywords and k not in ("true", "false", "frag")]
    type_name = r"(?<![\w.])(?:%s)(?:x(?:%s))?(?![\w.])" % (_alternation(scalars), _alternation(VECTOR_LANES))
    ident = r"[A-Za-z_][A-Za-z0-9_]*"
    return {
        "name": "CAKE IR",
        "scopeName": "source.cake",
        "fileTypes": ["cake"],
        "comment": "Generated by utils/gen-editor-vocabulary.py from the compiler's tables; do not edit by hand.",
        "patterns": [{"include": "#comment"}, {"include": "#declaration"}, {"include": "#frag-type"},
                     {"include": "#operation"}, {"include": "#intrinsic"}, {"include": "#clause"},
                     {"include": "#attribute"}, {"include": "#keyword"}, {"include": "#type"},
                     {"include": "#builtin"}, {"include": "#target"}, {"include": "#number"},
                     {"include": "#operator"}, {"include": "#punctuation"}],
        "repository": {
            "comment": {
                "match": r"(//).*$",
                "name": "comment.line.double-slash.cake",
                "captures": {"1": {"name": "punctuation.definition.comment.cake"}},
            },
            "declaration": {
                "patterns": [
                    {"match": r"(?<![\w.])(kernel|fn)\s+(%s)" % ident,
                     "captures": {"1": {"name": "storage.type.function.cake"},
                                  "2": {"name": "entity.name.function.cake"}}},
                    {"match": r"(?<![\w.])(let|var|shared|mbarrier|barrier|role)\s+(%s)" % ident,
                     "captures": {"1": {"name": "storage.type.cake"},
                                  "2": {"name": "variable.other.declaration.cake"}}},
                    {"match": r"(?<![\w.])(tmem)\s+(%s)(?=\s*:)" % ident,
                     "captures": {"1": {"name": "storage.type.cake"},
                                  "2": {"name": "variable.other.declaration.cake"}}},
                    {"match": r"(?<![\w.])(for)\s+(%s)\s+(in)(?![\w.])" % ident,
                     "captures": {"1": {"name": "keyword.control.cake"},
                                  "2": {"name": "variable.other.declaration.cake"},
                                  "3": {"name": "keyword.control.cake"}}},
                    {"match": r"(?<![\w.])(target)\s+(%s)" % ident,
                     "captures": {"1": {"name": "storage.type.cake"},
                                  "2": {"name": "constant.language.target.cake"}}},
                ]
            },
            "frag-type": {
                "begin": r"(?<![\w.])(frag)\s*(<)",
                "beginCaptures": {"1": {"name": "storage.type.frag.cake"},
                                  "2": {"name": "punctuation.definition.typeparameters.begin.cake"}},
                "end": r">",
                "endCaptures": {"0": {"name": "punctuation.definition.typeparameters.end.cake"}},
                "patterns": [{"match": _word(read_frag_kinds()), "name": "support.type.frag-kind.cake"},
                             {"include": "#type"}, {"include": "#number"}, {"include": "#operator"},
                             {"include": "#punctuation"}],
            },
            "operation": {"match": _word(ops), "name": "keyword.other.operation.cake"},
            "intrinsic": {"match": r"%s(?=\s*\()" % _word(intrinsics + TYPE_FUNCTIONS),
                          "name": "support.function.intrinsic.cake"},
            "clause": {"match": r"%s(?=\s*\()" % _word(read_clauses()), "name": "keyword.other.clause.cake"},
            "attribute": {"match": r"%s(?=\s*[(=])" % _word(read_attributes()),
                          "name": "entity.other.attribute-name.cake"},
            "keyword": {
                "patterns": [
                    {"match": _word(control_keywords), "name": "keyword.control.cake"},
                    {"match": _word(declaration_keywords), "name": "storage.type.cake"},
                    {"match": _word(["true", "false"]), "name": "constant.language.boolean.cake"},
                    {"match": _word(ROLE_UNITS) + r"(?=\s*\()", "name": "keyword.other.role-unit.cake"},
                    {"match": _word(CONTEXTUAL_KEYWORDS[1:]) + r"(?=\s*=)", "name": "storage.type.cake"},
                ]
            },
            "type": {"match": type_name, "name": "support.type.primitive.cake"},
            "builtin": {
                "patterns": [
                    {"match": _word(members), "name": "variable.language.builtin.cake"},
                    {"match": _word(plain + namespaces), "name": "variable.language.builtin.cake"},
                ]
            },
            "target": {"match": _word(read_targets()), "name": "constant.language.target.cake"},
            "number": {
                "patterns": [
                    {"match": r"(?<![\w.])[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?(?![\w.])|(?<![\w.])[0-9]+[eE][+-]?[0-9]+(?![\w.])",
                     "name": "constant.numeric.float.cake"},
                    {"match": r"(?<![\w.])0x[0-9a-fA-F]+(?![\w.])", "name": "constant.numeric.integer.hexadecimal.cake"},
                    {"match": r"(?<![\w.])0b[01]+(?![\w.])", "name": "constant.numeric.integer.binary.cake"},
                    {"match": r"(?<![\w.])[0-9]+B(?![\w])", "name": "constant.numeric.integer.bytes.cake"},
                    {"match": r"(?<![\w])[0-9]+(?![\w])", "name": "constant.numeric.integer.decimal.cake"},
                ]
            },
            "operator": {
                "patterns": [
                    {"match": r"<-", "name": "keyword.operator.arrow.cake"},
                    {"match": r"->", "name": "keyword.operator.return-type.cake"},
                    {"match": r"\+:", "name": "keyword.operator.slice.cake"},
                    {"match": r"\.\.", "name": "keyword.operator.range.cake"},
                    {"match": r"<<=|>>=|\+=|-=|\*=|/=|%=|&=|\|=|\^=", "name": "keyword.operator.assignment.compound.cake"},
                    {"match": r"==|!=|<=|>=", "name": "keyword.operator.comparison.cake"},
                    {"match": r"&&|\|\||!", "name": "keyword.operator.logical.cake"},
                    {"match": r"<<|>>|&|\||\^|~", "name": "keyword.operator.bitwise.cake"},
                    {"match": r"<|>", "name": "keyword.operator.comparison.cake"},
                    {"match": r"=", "name": "keyword.operator.assignment.cake"},
                    {"match": r"\+|-|\*|/|%", "name": "keyword.operator.arithmetic.cake"},
                ]
            },
            "punctuation": {
                "patterns": [
                    {"match": r";", "name": "punctuation.terminator.statement.cake"},
                    {"match": r",", "name": "punctuation.separator.comma.cake"},
                    {"match": r":", "name": "punctuation.separator.colon.cake"},
                    {"match": r"\.", "name": "punctuation.accessor.cake"},
                    {"match": r"[()\[\]{}]", "name": "punctuation.section.cake"},
                ]
            },
        },
    }


def build_vocabulary() -> str:
    """The Python module cakeir.lsp.vocabulary."""
    ops = read_operations()
    intrinsics = read_intrinsics()
    members, plain = read_builtins()
    lines = [
        '"""The language\'s words, for the language server: operations, intrinsics, keywords, types and builtins.',
        "",
        "Generated by utils/gen-editor-vocabulary.py from the compiler's tables (src/frontend/Ops.def,",
        "Intrinsics.def, TokenKinds.def, Types.cpp, Builtins.cpp, Ops.cpp); do not edit by hand.  Hover text falls",
        "back on OPERATIONS' forms and summaries when docs/language.md cannot be found.\"\"\"",
        "",
        "from typing import Dict, List, Tuple",
        "",
        "# spelling -> (architectures, form, summary), as Ops.def declares them",
        "OPERATIONS: Dict[str, Tuple[str, str, str]] = {",
    ]
    lines += ["    %r: (%r, %r, %r)," % (name, archs, form, summary) for name, archs, form, summary in ops]
    lines += ["}", "", "# spelling -> (argument count, architectures, summary), as Intrinsics.def declares them",
              "INTRINSICS: Dict[str, Tuple[int, str, str]] = {"]
    lines += ["    %r: (%d, %r, %r)," % (name, count, archs, summary) for name, count, archs, summary in intrinsics]
    lines += ["}", ""]

    def word_list(name: str, words: List[str]) -> None:
        lines.append("%s: List[str] = [" % name)
        line = "   "
        for w in words:
            item = " %r," % w
            if len(line) + len(item) > 110:
                lines.append(line)
                line = "   "
            line += item
        lines.append(line)
        lines.append("]")

    word_list("KEYWORDS", read_keywords() + CONTEXTUAL_KEYWORDS)
    word_list("SCALAR_TYPES", read_scalar_types())
    word_list("FRAG_KINDS", read_frag_kinds())
    word_list("BUILTINS", sorted(set(plain + [m.split(".")[0] for m in members])))
    word_list("BUILTIN_MEMBERS", members)
    word_list("CLAUSES", read_clauses())
    word_list("ATTRIBUTES", read_attributes())
    word_list("ROLE_UNITS", ROLE_UNITS)
    word_list("TARGETS", read_targets())
    return "\n".join(lines) + "\n"


def outputs() -> Dict[str, str]:
    return {GRAMMAR_PATH: json.dumps(build_grammar(), indent=2) + "\n", VOCABULARY_PATH: build_vocabulary()}


def main(argv: List[str]) -> int:
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    stale = []
    for path, text in outputs().items():
        current = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                current = f.read()
        if current == text:
            continue
        if check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print("wrote %s" % os.path.relpath(path, ROOT))
    if stale:
        print("stale (run utils/gen-editor-vocabulary.py): %s" % ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
