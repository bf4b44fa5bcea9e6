// samples/row_softmax.cake verifies with no diagnostics but the two E0672 warnings its expected-warning
// comments name (--verify-diagnostics fails on any other error, warning or note).
// RUN: %cakec --verify-only --verify-diagnostics %samples/row_softmax.cake
// The canonical IR (--emit=ir, which drops comments) of the sample verifies again, with the same two warnings.
// RUN: %cakec --emit=ir %samples/row_softmax.cake -o %t.cake
// RUN: %cakec --verify-only %t.cake 2>&1 | %FileCheck %s --check-prefix=CANON
// CANON: verified:
// CANON-NOT: error
// CANON-COUNT-2: warning: could not prove that the condition 'r >= 0 && r < R && c >= 0 && c < C' cannot wrap around{{.*}}[E0672]
// CANON-NOT: {{warning|error|note}}
