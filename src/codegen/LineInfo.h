// Line information in PTX (-lineinfo): `.file` and `.loc` directives that name the .cake line of every
// instruction, so ptxas -lineinfo records them in the cubin and Nsight Compute / compute-sanitizer report
// .cake lines.
#pragma once
#include "codegen/CodeGen.h"
#include "support/SourceManager.h"

namespace cake {

// Rewrites `cg`'s PTX in place: `.file N "name"` lines after `.address_size` (one per source file, numbered in
// order of first use), and `.loc N LINE COL` before each instruction whose .cake location differs from the
// previous instruction's.  An instruction copied from an inlined fn body is located in the body (its
// spelling file).  cg.lineRanges is kept in step (the inserted lines have no range).
void addLineInfo(CodegenResult &cg, const SourceManager &sources);

} // namespace cake
