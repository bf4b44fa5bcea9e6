// E0504: a stage that is not built yet (today: the cost model behind --estimate) says so plainly, exits 1
// and writes nothing.  Input errors are still reported first, and then E0504 is not.
// RUN: %expect-exit 1 %cakec %s --estimate --shape M=4096,N=4096 2>%t.err | count 0
// RUN: %FileCheck %s --check-prefix=ESTIMATE < %t.err
// ESTIMATE: cakec: error: --estimate is not available yet: the cost model (src/cost) has not been built; no estimate was produced [E0504]
// RUN: %expect-exit 1 %cakec %s --estimate --diagnostics-format=json | %FileCheck %s --check-prefix=JSON
// JSON: "code":"E0504"
// RUN: %expect-exit 1 %cakec %S/../driver/Inputs/syntax_error.cake --estimate 2>&1 | %FileCheck %s --check-prefix=INPUT
// INPUT: error: expected
// INPUT-NOT: E0504
// Under --verify-diagnostics the diagnostic of the requested stage is checked like any other.
// RUN: %cakec %s --estimate --verify-diagnostics
// expected-error@* E0504 {{--estimate is not available yet}}
target sm_80;
