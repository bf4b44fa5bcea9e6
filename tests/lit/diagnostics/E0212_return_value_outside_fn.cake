// E0212: 'return EXPR;' in a kernel.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k() grid(1) threads(32) {
  return 1;                      // expected-error E0212 {{'return' with a value outside an fn}}
}
