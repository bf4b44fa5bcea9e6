// E0701: a valid construct that code generation cannot lower yet is reported at the construct (never wrong
// PTX); nothing is written.  Every construct of this version lowers: the last one reported E0701, an arrive
// that combines expect_tx(..) with cta(..) (a remote arrive.expect_tx), lowers since session 2
// (tests/lit/codegen/hopper_mbarrier_remote_expect_tx.cake).  This file checks that it stays lowered: no
// diagnostic is expected, and the PTX is written.
// RUN: rm -f %t.ptx
// RUN: %cakec --verify-diagnostics --no-verify --emit=ptx -o %t.ptx %s
// RUN: %cakec %s --no-verify --emit=ptx -o %t.ptx 2>&1 | %FileCheck %s --allow-empty
// CHECK-NOT: E0701
// RUN: test -s %t.ptx
target sm_90a;

kernel k(X: f32[N]) grid(2) threads(128) cluster(2) {
  mbarrier bar arrivals(1);
  arrive bar expect_tx(16) cta(1);
}
