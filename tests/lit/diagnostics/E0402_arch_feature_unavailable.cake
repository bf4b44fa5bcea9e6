// E0402: operations, clauses, types and attributes the target does not have.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: bf16[M, N] tma(box=[64, 64])) grid(M / BM) threads(128) cluster(2) {
  // expected-error@-1 E0402 {{'tma' is not available on sm_80: it requires sm_90 or newer}}
  // expected-error@-2 E0402 {{'cluster' is not available on sm_80: it requires sm_90 or newer}}
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  wgmma.fence;                   // expected-error E0402 {{'wgmma.fence' is not available on sm_80: it requires sm_90a only}}
  var q: f8e4m3 = 0.0;           // expected-error E0402 {{'f8e4m3' is not available on sm_80: it requires sm_89 or newer}}
  mbarrier full arrivals(1);
  arrive full expect_tx(128);    // expected-error E0402 {{'arrive ... expect_tx' is not available on sm_80: it requires sm_90 or newer}}
  role r = warpgroup(0) regs(40) { }   // expected-error E0402 {{'regs' (setmaxnreg) is not available on sm_80: it requires sm_90a or sm_100a}}
}
