// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(32) {
  let a = 18446744073709551615;
  let b = 18446744073709551616;   // expected-error E0104 {{integer literal '18446744073709551616' does not fit in 64 bits}}
  let c = 0x10000000000000000;    // expected-error E0104 {{does not fit in 64 bits}}
  let d = 0x0000000000000000000000ff;
}
