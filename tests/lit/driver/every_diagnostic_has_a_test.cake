// Every diagnostic code in src/support/DiagnosticKinds.def has a failing-input test named after it in
// tests/lit/diagnostics/ (and every file there is named after a real code).
// RUN: %python %S/../../../utils/check-diagnostic-tests.py %S/../../.. | %FileCheck %s
// CHECK: {{[0-9]+}} codes, {{[0-9]+}} test files, 0 problems
target sm_80;
