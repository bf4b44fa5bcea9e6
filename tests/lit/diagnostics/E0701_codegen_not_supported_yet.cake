// E0701: a valid construct that code generation cannot lower yet is reported at the construct (never wrong
// PTX); nothing is written.  Every Hopper construct lowers now (docs/hopper.md) except an arrive that
// combines expect_tx(..) with cta(..) (a remote arrive.expect_tx).
// RUN: %cakec --verify-diagnostics --no-verify --emit=ptx -o %t.ptx %s
// RUN: rm -f %t.ptx
// RUN: %expect-exit 1 %cakec %s --no-verify --emit=ptx -o %t.ptx 2>&1 | %FileCheck %s
// CHECK: error: arrive with both expect_tx(..) and cta(..) is not supported by code generation yet [E0701]
// RUN: test ! -e %t.ptx
target sm_90a;

kernel k(X: f32[N]) grid(2) threads(128) cluster(2) {
  mbarrier bar arrivals(1);
  arrive bar expect_tx(16) cta(1);       // expected-error E0701 {{arrive with both expect_tx(..) and cta(..) is not supported}}
}
