// samples/row_softmax.cake verifies with no diagnostics (--verify-diagnostics fails on any error, warning
// or note): its shifts by the warps-per-row exponent lg (0..5) are case splits over that range, and its
// indices are in range by their operands' bounds.
// RUN: %cakec --verify-only --verify-diagnostics %samples/row_softmax.cake
// The canonical IR (--emit=ir, which drops comments) of the sample verifies again, just as cleanly.
// RUN: %cakec --emit=ir %samples/row_softmax.cake -o %t.cake
// RUN: %cakec --verify-only %t.cake 2>&1 | %FileCheck %s --check-prefix=CANON
// CANON: verified:
// CANON-NOT: {{warning|error|note}}
