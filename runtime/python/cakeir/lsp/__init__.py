"""The CAKE language server (Language Server Protocol over stdio): cakec's diagnostics with their notes and
fix-its, hover text from the language reference, go-to-definition.  docs/editors.md says how to use it.

  server.py       the pygls server: which request does what, settings
  diagnostics.py  running cakec on a buffer; its JSON diagnostics as LSP diagnostics and quick fixes
  hover.py        what hovering shows
  reference.py    sections of docs/language.md for a word
  symbols.py      declarations of a buffer and the one a name refers to (a lexical scan)
  positions.py    cakec's byte columns, LSP's UTF-16 (or UTF-8 / UTF-32) columns and string indices
  vocabulary.py   the language's words (generated from the compiler's tables)

The server needs pygls (`pip install cakeir[lsp]`); importing this package does not.
"""
