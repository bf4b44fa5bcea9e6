// E0506: with --diagnostics-format=json, a command-line error is the one element of the JSON array on stdout
// (stdout is exactly one JSON document); the text form stays on stderr. Exit 2 either way.
// RUN: %expect-exit 2 %cakec %s --no-such-option --diagnostics-format=json > %t.1.json 2> %t.1.err
// RUN: %python %S/Inputs/one_json_document.py %t.1.json | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: 1 E0506 error None 0 The following argument was not expected: --no-such-option
// RUN: %FileCheck %s --check-prefix=TEXT < %t.1.err
// TEXT: cakec: error: The following argument was not expected: --no-such-option
// The format given as a separate argument, and an error found after parsing (no input file):
// RUN: %expect-exit 2 %cakec --verify-only --diagnostics-format json > %t.2.json
// RUN: %python %S/Inputs/one_json_document.py %t.2.json | %FileCheck %s --check-prefix=NOINPUT
// NOINPUT: 1 E0506 error None 0 no input file
// --estimate --json and JSON diagnostics would be two documents on stdout: refused, as one.
// RUN: %expect-exit 2 %cakec %s --estimate --json --shape N=64 --diagnostics-format=json > %t.3.json
// RUN: %python %S/Inputs/one_json_document.py %t.3.json | %FileCheck %s --check-prefix=BOTH
// BOTH: 1 E0506 error None 0 --estimate --json and --diagnostics-format=json both write a JSON document to stdout
// Without JSON, a command-line error writes nothing to stdout.
// RUN: %expect-exit 2 %cakec %s --no-such-option > %t.4.out 2>/dev/null
// RUN: test ! -s %t.4.out
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
