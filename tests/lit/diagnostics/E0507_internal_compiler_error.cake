// E0507: with --diagnostics-format=json, an internal compiler error (forced by a hidden test hook) is the one
// element of the JSON array on stdout, exit 4; the text form (with the cakec version) stays on stderr.
// RUN: %expect-exit 4 %cakec %s --verify-only --debug-force-internal-error --diagnostics-format=json > %t.json 2> %t.err
// RUN: %python %S/Inputs/one_json_document.py %t.json | %FileCheck %s
// CHECK: 1 E0507 fatal error None 0 internal compiler error: at {{.*}}Driver.cpp:{{[0-9]+}}: forced by --debug-force-internal-error
// RUN: %FileCheck %s --check-prefix=TEXT < %t.err
// TEXT: internal compiler error: at {{.*}}: forced by --debug-force-internal-error
// TEXT-NEXT: cakec {{.*}} failed on '{{.*}}E0507_internal_compiler_error.cake'; this is a bug in cakec, not in the input
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
