"""The TextMate grammar editors/textmate/cake.tmLanguage.json and the VS Code manifest editors/vscode.

No maintained pure-Python TextMate engine is on PyPI, so the test carries a small one (tokenize_line below:
line by line, `match` rules with captures, `begin`/`end` rules, `#name` includes; the earliest match wins,
ties go to the rule listed first, and a begin/end rule's end before its inner patterns).  Its regexes run
in Python's re, which reads the grammar's regex subset (fixed-width look-behind, classes, alternation) as
Oniguruma, TextMate's regex engine, does; with onigurumacffi installed (utils/common.sh installs it into the
test venv when it can) the samples are tokenized with Oniguruma too and must give the same tokens.
Checked: the generated files are up to date with the compiler's tables, every regex compiles, every
operation and intrinsic of Ops.def / Intrinsics.def is one token with its scope, and the samples tokenize
with the expected scopes for keywords, types, frag<...>, numbers and comments."""

import glob
import json
import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAMMAR = os.path.join(REPO, "editors", "textmate", "cake.tmLanguage.json")
VSCODE = os.path.join(REPO, "editors", "vscode")

sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
from cakeir.lsp import vocabulary  # noqa: E402


@pytest.fixture(scope="module")
def grammar():
    with open(GRAMMAR, encoding="utf-8") as f:
        return json.load(f)


def _resolve(grammar, patterns):
    """The rules of `patterns` with `include`s replaced by the rules they name (recursively)."""
    out = []
    for p in patterns:
        if "include" in p:
            name = p["include"]
            assert name.startswith("#"), name
            out.extend(_resolve(grammar, [grammar["repository"][name[1:]]]))
        elif "match" in p or "begin" in p:
            out.append(p)
        else:
            out.extend(_resolve(grammar, p.get("patterns", [])))
    return out


def _emit(tokens, line, m, captures, scopes, whole):
    """Tokens for match m: its capture groups with their scopes, the rest with `whole` (or no scope)."""
    pos = m.start()
    base = scopes + ([whole] if whole else [])
    groups = sorted((m.start(int(g)), m.end(int(g)), c["name"]) for g, c in (captures or {}).items()
                    if g != "0" and m.group(int(g)) is not None and m.start(int(g)) >= 0)
    if "0" in (captures or {}):
        base = base + [captures["0"]["name"]]
    for start, end, name in groups:
        if start > pos:
            tokens.append((line[pos:start], base))
        if end > start:
            tokens.append((line[start:end], base + [name]))
        pos = end
    if m.end() > pos:
        tokens.append((line[pos:m.end()], base))


def tokenize_line(grammar, line, stack, compile_regex=re.compile):
    """(tokens as (text, scopes), new stack) for one line; `stack` holds the open begin/end rules."""
    tokens = []
    pos = 0
    while pos < len(line):
        scopes = [r["name"] for r in stack if r.get("name")]
        candidates = []
        if stack:
            candidates.append(("end", stack[-1], compile_regex(stack[-1]["end"])))
            patterns = _resolve(grammar, stack[-1].get("patterns", []))
        else:
            patterns = _resolve(grammar, grammar["patterns"])
        candidates += [("rule", p, compile_regex(p.get("match") or p["begin"])) for p in patterns]
        best = None
        for kind, rule, regex in candidates:
            m = regex.search(line, pos)
            if m and (best is None or m.start() < best[2].start()):
                best = (kind, rule, m)
        if best is None:
            tokens.append((line[pos:], scopes))
            break
        kind, rule, m = best
        if m.start() > pos:
            tokens.append((line[pos:m.start()], scopes))
        if kind == "end":
            _emit(tokens, line, m, rule.get("endCaptures"), scopes[:-1] if rule.get("name") else scopes,
                  rule.get("name"))
            stack = stack[:-1]
        elif "match" in rule:
            _emit(tokens, line, m, rule.get("captures"), scopes, rule.get("name"))
        else:
            _emit(tokens, line, m, rule.get("beginCaptures"), scopes, rule.get("name"))
            stack = stack + [rule]
        pos = m.end() if m.end() > pos else pos + 1
    return tokens, stack


def tokenize(grammar, text, compile_regex=re.compile):
    stack, out = [], []
    for line in text.split("\n"):
        tokens, stack = tokenize_line(grammar, line, stack, compile_regex)
        out.extend((t, s) for t, s in tokens if t.strip())
    return out


def scopes_of(tokens, text):
    return [s for t, s in tokens if t == text]


def test_generated_files_are_up_to_date():
    result = subprocess.run([sys.executable, os.path.join(REPO, "utils", "gen-editor-vocabulary.py"), "--check"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert result.returncode == 0, result.stdout.decode()


def test_every_regex_compiles(grammar):
    count = 0

    def walk(node):
        nonlocal count
        if isinstance(node, dict):
            for key in ("match", "begin", "end"):
                if key in node:
                    re.compile(node[key])
                    count += 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(grammar)
    assert count > 30
    assert grammar["scopeName"] == "source.cake"
    for include in re.findall(r'"include": "#([\w-]+)"', json.dumps(grammar)):
        assert include in grammar["repository"], include


def test_vscode_manifest():
    with open(os.path.join(VSCODE, "package.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    [grammar_entry] = manifest["contributes"]["grammars"]
    [language] = manifest["contributes"]["languages"]
    assert language["extensions"] == [".cake"] and grammar_entry["language"] == language["id"]
    assert grammar_entry["scopeName"] == "source.cake"
    path = os.path.join(VSCODE, grammar_entry["path"])
    assert os.path.realpath(path) == os.path.realpath(GRAMMAR)
    with open(os.path.join(VSCODE, language["configuration"]), encoding="utf-8") as f:
        config = json.load(f)
    assert config["comments"]["lineComment"] == "//"
    assert ["{", "}"] in config["brackets"]
    assert {"open": "(", "close": ")"} in config["autoClosingPairs"]


def test_every_operation_is_one_token(grammar):
    for op in vocabulary.OPERATIONS:
        tokens = tokenize(grammar, "  %s a[s] <- B[0, 0] signal(full[s]);" % op)
        assert tokens[0] == (op, ["keyword.other.operation.cake"]), (op, tokens[:3])
        assert scopes_of(tokens, "signal") == [["keyword.other.clause.cake"]]


def test_every_intrinsic_is_one_token(grammar):
    for name in vocabulary.INTRINSICS:
        tokens = tokenize(grammar, "  let v = %s(x, 1);" % name)
        assert scopes_of(tokens, name) == [["support.function.intrinsic.cake"]], (name, tokens)


def test_samples(grammar):
    seen = set()
    for path in sorted(glob.glob(os.path.join(REPO, "samples", "*.cake"))):
        with open(path, encoding="utf-8") as f:
            tokens = tokenize(grammar, f.read())
        for text, scopes in tokens:
            scope = scopes[-1] if scopes else ""
            seen.add((text, scope))
            if text in vocabulary.OPERATIONS and "comment" not in scope:
                assert scope in ("keyword.other.operation.cake", "punctuation.accessor.cake"), (path, text, scopes)
    expected = [
        ("kernel", "storage.type.function.cake"), ("hopper_gemm", "entity.name.function.cake"),
        ("let", "storage.type.cake"), ("for", "keyword.control.cake"), ("in", "keyword.control.cake"),
        ("elect", "keyword.control.cake"), ("target", "storage.type.cake"), ("sm_90a", "constant.language.target.cake"),
        ("bf16", "support.type.primitive.cake"), ("f32x8", "support.type.primitive.cake"),
        ("frag", "storage.type.frag.cake"), ("wgmma_acc", "support.type.frag-kind.cake"),
        ("tma.load", "keyword.other.operation.cake"), ("wgmma.commit", "keyword.other.operation.cake"),
        ("wait", "keyword.other.operation.cake"), ("parity", "keyword.other.clause.cake"),
        ("swizzle", "entity.other.attribute-name.cake"), ("threads", "entity.other.attribute-name.cake"),
        ("warpgroup", "keyword.other.role-unit.cake"), ("tid.x", "variable.language.builtin.cake"),
        ("128B", "constant.numeric.integer.bytes.cake"), ("0.0", "constant.numeric.float.cake"),
        ("<-", "keyword.operator.arrow.cake"), ("+:", "keyword.operator.slice.cake"),
        ("..", "keyword.operator.range.cake"), ("//", "punctuation.definition.comment.cake"),
        ("cdiv", "support.function.intrinsic.cake"),
    ]
    missing = [e for e in expected if e not in seen]
    assert not missing, missing


def test_oniguruma_gives_the_same_tokens(grammar):
    onig = pytest.importorskip("onigurumacffi", reason="onigurumacffi (Oniguruma's Python binding) is not installed")
    cache = {}

    def compile_onig(pattern):
        if pattern not in cache:
            cache[pattern] = onig.compile(pattern)
        return cache[pattern]
    texts = []
    for path in sorted(glob.glob(os.path.join(REPO, "samples", "*.cake"))):
        with open(path, encoding="utf-8") as f:
            texts.append(f.read())
    texts.append("\n".join("  %s a[s] <- B[0, 0] signal(full[s]);" % op for op in vocabulary.OPERATIONS))
    texts.append("\n".join("  let v = %s(x, 1);" % name for name in vocabulary.INTRINSICS))
    for text in texts:
        assert tokenize(grammar, text, compile_onig) == tokenize(grammar, text)


def test_comment_swallows_the_line(grammar):
    tokens = tokenize(grammar, "let x = 1; // wait tma.load 0x1f")
    assert tokens[-1] == (" wait tma.load 0x1f", ["comment.line.double-slash.cake"])
    assert ("0x1f", ["constant.numeric.integer.hexadecimal.cake"]) in tokenize(grammar, "let m = 0x1f;")
    assert ("0b101", ["constant.numeric.integer.binary.cake"]) in tokenize(grammar, "let m = 0b101;")
