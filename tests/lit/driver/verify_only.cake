// --verify-only on valid input: exit 0, nothing on stdout, one summary line on stderr that says the
// verifier is not built yet (so the absence of errors is not mistaken for a proof).
// RUN: %cakec %s --verify-only 2>%t.err | count 0
// RUN: %FileCheck %s < %t.err
// CHECK: cakec: {{.*}}verify_only.cake: front-end checks passed (parse, sema) for sm_80; the verifier is not built yet, so no proofs were attempted
// CHECK-NOT: {{.}}
// --arch overrides the file's target.
// RUN: %cakec %s --verify-only --arch sm_90a 2>&1 | %FileCheck %s --check-prefix=ARCH
// ARCH: front-end checks passed (parse, sema) for sm_90a;
// Standard input: '-'.
// RUN: cat %s | %cakec - --verify-only 2>&1 | %FileCheck %s --check-prefix=STDIN
// STDIN: cakec: <stdin>: front-end checks passed
target sm_80;
