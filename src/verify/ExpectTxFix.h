// ExpectTxFix: the fix-it for an expect_tx that does not match the copies of its phase (E0604): the byte count
// written as the copies' tiles are declared - each tile's dims (the bracket groups of its shared array that the
// copy does not index) times sizeof of the element type, once per copy - so that the edit holds for every value
// of the compile-time parameters the tiles are declared with, not only for the counterexample's.
#pragma once
#include "frontend/AST.h"
#include "support/Diagnostics.h"

#include <optional>
#include <string>
#include <vector>

namespace cake {

struct PhaseCopy {
  const OpStmt *copy = nullptr;   // the tma.load statement
  int64_t count = 0;              // how many of its executions signal the phase
};

// "BM * BK * sizeof(bf16) + BN * BK * sizeof(bf16)" for the copies (statements in source order, each with a
// count prefix when it signals the phase more than once); nullopt when some copy's destination is not a tile
// of a declared shared array (a slice, a fn parameter) or the list is empty.
std::optional<std::string> expectTxBytesText(std::vector<PhaseCopy> copies);

// The range of the byte-count expression of an `arrive .. expect_tx(E)` or `mbarrier.expect_tx B, E` statement.
std::optional<SourceRange> expectTxArgRange(const OpStmt &s);

} // namespace cake
