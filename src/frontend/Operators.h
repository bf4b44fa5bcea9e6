// Source spellings of CAKE's operators, shared by the printer and by diagnostics.
#pragma once
#include "frontend/AST.h"

#include <string_view>

namespace cake {

std::string_view binaryOpSpelling(BinaryOp op);   // BinaryOp::Add -> "+"

} // namespace cake
