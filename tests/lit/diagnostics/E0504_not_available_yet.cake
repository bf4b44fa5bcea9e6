// E0504: a stage that cannot serve the request says so plainly, exits 1 and writes nothing.  Today: the
// cost model has no machine description for sm_86 (machines/*.json covers sm_80, sm_90/sm_90a, sm_100a).
// Input errors are still reported first, and then E0504 is not.
// RUN: %expect-exit 1 %cakec %s --estimate --arch sm_86 2>%t.err | count 0
// RUN: %FileCheck %s --check-prefix=ESTIMATE < %t.err
// ESTIMATE: cakec: error: --estimate for sm_86 is not available yet: no machine description is the default for sm_86; give one with --machine NAME|PATH (machines/*.json) [E0504]
// RUN: %expect-exit 1 %cakec %s --estimate --arch sm_86 --diagnostics-format=json | %FileCheck %s --check-prefix=JSON
// JSON: "code":"E0504"
// RUN: %expect-exit 1 %cakec %S/../driver/Inputs/syntax_error.cake --estimate --arch sm_86 2>&1 | %FileCheck %s --check-prefix=INPUT
// INPUT: error: expected
// INPUT-NOT: E0504
// Under --verify-diagnostics the diagnostic of the requested stage is checked like any other.
// RUN: %cakec %s --estimate --arch sm_86 --verify-diagnostics
// expected-error@* E0504 {{--estimate for sm_86 is not available yet}}
target sm_80;
