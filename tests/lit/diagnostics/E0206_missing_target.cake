// RUN: %cakec --verify-only --verify-diagnostics %s
kernel k() threads(32) {   // expected-error E0206 {{expected 'target' declaration at the start of the file, found 'kernel'}}
}
