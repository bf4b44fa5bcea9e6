// --verify-diagnostics: exit 0 iff every emitted diagnostic is expected and every expectation is met;
// mismatches on both sides are listed with their locations.  Inputs/mismatch.cake expects one error that
// does not occur, and has one that it does not expect, plus a malformed directive.
// RUN: %expect-exit 1 %cakec %S/Inputs/mismatch.cake --verify-only --verify-diagnostics 2>&1 | %FileCheck %s
// CHECK: mismatch.cake:6: error: malformed expectation: expected '{{[{][{]}}message substring{{[}][}]}}' in expected-error
// CHECK: mismatch.cake:4: error: expected error on line 5 not seen: E0301 {{[{][{]}}use of undeclared name 'q'{{[}][}]}}
// CHECK: mismatch.cake:3:7: error: unexpected error [E0201]: expected
// CHECK: cakec: --verify-diagnostics: 1 expected not seen, 1 unexpected, 1 malformed
// The same file passes once its expectations are right (Inputs/match.cake), and diagnostics are not
// printed in this mode.
// RUN: %cakec %S/Inputs/match.cake --verify-only --verify-diagnostics 2>&1 | count 0
target sm_80;
