// --verify-only on valid input: exit 0, nothing on stdout, one summary line on stderr that says what was
// checked (the verifier's proven obligations, or that verification was skipped).
// RUN: %cakec %s --verify-only 2>%t.err | count 0
// RUN: %FileCheck %s < %t.err
// CHECK: cakec: {{.*}}verify_only.cake: verified: {{[0-9]+}} obligations proven for sm_80
// CHECK-NOT: {{.}}
// --no-verify says that the proofs were skipped rather than claiming them.
// RUN: %cakec %s --verify-only --no-verify 2>&1 | %FileCheck %s --check-prefix=SKIPPED
// SKIPPED: cakec: {{.*}}verify_only.cake: verification skipped (--no-verify) for sm_80
// --arch overrides the file's target.
// RUN: %cakec %s --verify-only --arch sm_90a 2>&1 | %FileCheck %s --check-prefix=ARCH
// ARCH: obligations proven for sm_90a
// Standard input: '-'.
// RUN: cat %s | %cakec - --verify-only 2>&1 | %FileCheck %s --check-prefix=STDIN
// STDIN: cakec: <stdin>: verified:
target sm_80;
