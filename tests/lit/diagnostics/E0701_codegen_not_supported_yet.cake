// E0701: valid Hopper-only constructs that code generation cannot lower yet are reported at each construct
// (never wrong PTX); nothing is written.
// RUN: %cakec --verify-diagnostics --emit=ptx -o %t.ptx %s
// RUN: rm -f %t.ptx
// RUN: %expect-exit 1 %cakec %s --emit=ptx -o %t.ptx 2>&1 | %FileCheck %s
// CHECK: error: wgmma ('wgmma.fence') is not supported by code generation yet [E0701]
// CHECK: hint: Hopper-specific code generation
// RUN: test ! -e %t.ptx
target sm_90a;

kernel k(X: f32[N]) grid(1) threads(256) {
  mbarrier bar arrivals(1);
  role math = warpgroup(1) regs(232) {   // expected-error E0701 {{a role register budget (regs -> setmaxnreg) is not supported by code generation yet}}
    wgmma.fence;                         // expected-error E0701 {{wgmma ('wgmma.fence') is not supported}}
  }
  arrive bar expect_tx(16);              // expected-error E0701 {{arrive with expect_tx is not supported}}
}
