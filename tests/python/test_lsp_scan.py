"""The language server's pieces that need no LSP client: the declaration scan (cakeir.lsp.symbols), hover
text (hover.py, reference.py) and column conversions (positions.py).  They need neither pygls nor cakec."""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

from cakeir.lsp import positions, symbols  # noqa: E402
from cakeir.lsp.hover import hover_markdown  # noqa: E402
from cakeir.lsp.reference import Reference  # noqa: E402

SOURCE = """target sm_90a;

fn twice(x: f32, var acc: f32) -> f32 {
  acc += x;
  return x + x;
}

kernel k<BM = 64, T: type = bf16>(A: T[M, K], out: f32[M]) requires(K >= 1) grid(M / BM) threads(128) {
  shared tile: f32[BM];
  mbarrier full[2] arrivals(1);
  let x = 1;
  for i in 0..K {
    let x = i + x;        // shadows the outer x from here on
    tile[i % BM] = f32(x);
  }
  var total: f32 = twice(f32(x), total);
  out[tid.x] = total;
}
"""


def decl_at(text, needle, nth=0, delta=0):
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    index += delta
    name = symbols.identifier_at(text, index)[0]
    return symbols.definition(symbols.declarations(text), name, index)


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def test_declarations_and_scopes():
    kinds = {(d.name, d.kind) for d in symbols.declarations(SOURCE)}
    assert {("twice", "fn"), ("x", "fn parameter"), ("acc", "fn parameter"), ("k", "kernel"),
            ("BM", "compile-time parameter"), ("T", "type parameter"), ("A", "parameter"),
            ("M", "shape variable"), ("K", "shape variable"), ("tile", "shared"), ("full", "mbarrier"),
            ("x", "let"), ("i", "loop variable"), ("total", "var")} <= kinds
    assert ("T", "shape variable") not in kinds              # a declared name is no shape variable
    # the inner let's right-hand side sees the outer x; after it, the inner one
    assert line_of(SOURCE, decl_at(SOURCE, "i + x;", delta=4).start) == 11
    assert line_of(SOURCE, decl_at(SOURCE, "f32(x);", delta=4).start) == 13
    assert line_of(SOURCE, decl_at(SOURCE, "f32(x), total", delta=4).start) == 11   # after the loop block
    assert decl_at(SOURCE, "i % BM").kind == "loop variable"
    assert decl_at(SOURCE, "BM];").kind == "compile-time parameter"
    assert decl_at(SOURCE, "M / BM").kind == "shape variable"
    assert decl_at(SOURCE, "twice(f32").kind == "fn"
    assert decl_at(SOURCE, "acc += x").kind == "fn parameter"
    # a member is no use of a name
    assert symbols.identifier_at(SOURCE, SOURCE.index("tid.x") + 4)[3]


def test_hover_reference_and_declarations():
    reference = Reference.load()
    text = open(os.path.join(REPO, "samples", "hopper_gemm.cake"), encoding="utf-8").read()
    markdown, start, end = hover_markdown(text, text.index("tma.load a[s]") + 5, reference)
    assert text[start:end] == "tma.load"
    assert "TMA tile copy" in markdown and "signal(MBAR[stage])" in markdown   # Ops.def summary, docs section
    markdown, _, _ = hover_markdown(text, text.index("wgmma.commit") + 1, reference)
    assert "close the current wgmma group" in markdown
    markdown, _, _ = hover_markdown(SOURCE, SOURCE.index("tile[i"), reference)
    assert "shared tile: f32[BM];" in markdown
    assert hover_markdown(SOURCE, SOURCE.index("// shadows") + 5, reference) is None   # in a comment


def test_hover_without_the_reference_falls_back_on_the_tables():
    markdown, _, _ = hover_markdown("  wait full[0] parity(0);", 3, Reference(None))
    assert "block until the mbarrier phase" in markdown and "wait MBAR[stage] parity(P)" in markdown


def test_columns():
    line = "let a = 1; // \u00e9\U0001F600 x"
    byte_column = len(line.encode("utf-8")) - 1                     # the x
    assert positions.column_from_byte_column(line, byte_column) == len(line) - 1 + 1   # the emoji is 2 units
    assert positions.column_from_byte_column(line, byte_column, "utf-8") == byte_column
    assert positions.column_from_byte_column(line, byte_column, "utf-32") == len(line) - 1
    text = "a\n" + line
    assert positions.offset_of(text, 1, len(line)) == len(text) - 1
    assert positions.position_of(text, len(text) - 1) == (1, len(line))
