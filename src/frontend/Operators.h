// Source spellings of CAKE's operators, shared by the printer and by diagnostics, and the binary operator
// of each compound assignment (sema types `x += e` as `x + e`; the interpreter computes it so).
#pragma once
#include "frontend/AST.h"

#include <string_view>

namespace cake {

std::string_view binaryOpSpelling(BinaryOp op);   // BinaryOp::Add -> "+"
BinaryOp assignBinaryOp(AssignOp op);             // AssignOp::Add -> BinaryOp::Add (Set: Add, unused)

} // namespace cake
