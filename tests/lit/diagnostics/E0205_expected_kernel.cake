// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
let x = 1;     // expected-error E0205 {{expected 'kernel' or 'fn', found 'let'}}
kernel k() threads(32) {
}
