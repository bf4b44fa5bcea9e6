// Where a statement added by a fix-it goes when it must run in more threads than the statement it follows: next
// to the statement that holds `inner` in the innermost block that also holds `alsoIn` (e.g. a syncwarp after the
// `if lane == 0 { wait ... }` that holds a wait, in the block where the other lanes read).
#pragma once
#include "frontend/AST.h"

#include <optional>

namespace cake {

// The statement of the innermost block holding both ranges that holds `inner`; nullopt when there is none (one
// range outside `body`, e.g. in an inlined fn, or both in one statement).  With `selective`: whether that block
// lies in a role, an if or an elect (not every thread of the block reaches it: no place for syncthreads).
std::optional<SourceRange> statementHoldingIn(const BlockStmt &body, SourceRange inner, SourceRange alsoIn,
                                              bool *selective = nullptr);

// The innermost statement (of a block: not an if's condition) that holds `r`, e.g. the assignment around a write
// to a tile; nullopt when `r` is outside `body`.
std::optional<SourceRange> statementHolding(const BlockStmt &body, SourceRange r);

} // namespace cake
