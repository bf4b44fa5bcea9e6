// E0505: --explain takes a known code (any case) or 'list'; an unknown code is misuse (exit 2).
// RUN: %expect-exit 2 %cakec --explain E9999 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: cakec: error: no diagnostic has code 'E9999' [E0505]
// RUN: %cakec --explain e0301 | %FileCheck %s --check-prefix=KNOWN
// KNOWN: E0301 (UndefinedName, error): use of undeclared name '{0}'
// KNOWN-EMPTY:
// KNOWN-NEXT: The name is not a kernel parameter
// RUN: %cakec --explain list | %FileCheck %s --check-prefix=LIST
// LIST: E0001  TooManyErrors: too many errors emitted ({0}); stopping now
// LIST: E0505  UnknownDiagnosticCode: no diagnostic has code '{0}'
target sm_80;
