// Which tensors a kernel body writes: codegen loads a tensor the kernel never writes through the non-coherent
// cache (ld.global.nc), and the verifier treats what such a tensor holds as fixed for the launch.
#pragma once
#include "frontend/AST.h"

namespace cake {

// The name an index chain starts from: T of T, T[i] and T[i][j]; null when it starts elsewhere.
const NameExpr *indexRoot(const Expr &e);

// True when some statement of `s` may write `tensor`: an assignment's target, an op's destination, the target
// of an atom.* call anywhere in an expression, or a call statement (not inlined yet: its body is not known).
bool writesTensor(const Stmt &s, const Decl *tensor);

} // namespace cake
