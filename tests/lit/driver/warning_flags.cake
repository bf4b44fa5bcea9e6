// The warning tier: warnings do not fail the build; -Werror makes every warning an error (exit 1), -w drops
// them all, a later -W<flag> turns a flag that -Wno-<flag> turned off back on; an unknown flag is a usage
// error with the closest flag as the hint.
// RUN: %cakec --verify-only %s 2>&1 | %FileCheck %s --check-prefix=WARN
// WARN-DAG: warning: shared array 'idle' is declared but never used [E0375]
// WARN-DAG: verified
// RUN: %expect-exit 1 %cakec --verify-only -Werror %s 2>&1 | %FileCheck %s --check-prefix=WERROR
// WERROR: error: shared array 'idle' is declared but never used [E0375]
// RUN: %cakec --verify-only -w %s 2>&1 | %FileCheck %s --check-prefix=QUIET
// QUIET-NOT: warning:
// RUN: %cakec --verify-only -Wno-unused -Wunused %s 2>&1 | %FileCheck %s --check-prefix=WARN
// RUN: %expect-exit 2 %cakec --verify-only -Wspils %s 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: cakec: error: -Wspils: no warning is named 'spils'
// UNKNOWN-NEXT: hint: did you mean 'spills'?
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  shared idle: f32[64];
  X[0] = 1.0;
}
