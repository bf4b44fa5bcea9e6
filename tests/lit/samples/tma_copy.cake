// samples/tma_copy.cake passes the front end (parse + sema) with zero diagnostics: --verify-diagnostics with no
// expectations in the sample fails on any error, warning or note.
// RUN: %cakec --verify-only --verify-diagnostics %samples/tma_copy.cake
// The canonical IR (--emit=ir) of the sample passes the front end again.
// RUN: %cakec --emit=ir %samples/tma_copy.cake -o %t.cake
// RUN: %cakec --verify-only --verify-diagnostics %t.cake
