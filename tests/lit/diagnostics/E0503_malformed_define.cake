// E0503: -D takes NAME=INTEGER or NAME=TYPE; anything else is command-line misuse (exit 2) and nothing is compiled.
// RUN: %expect-exit 2 %cakec %s --verify-only -D BM 2>&1 | %FileCheck %s --check-prefix=NOVALUE
// NOVALUE: cakec: error: malformed -D 'BM': expected NAME=INTEGER or NAME=TYPE [E0503]
// RUN: %expect-exit 2 %cakec %s --verify-only -D BM=1.5 2>&1 | %FileCheck %s --check-prefix=FLOAT
// FLOAT: cakec: error: malformed -D 'BM=1.5': expected NAME=INTEGER or NAME=TYPE [E0503]
// RUN: %expect-exit 2 %cakec %s --verify-only -D 9X=1 2>&1 | %FileCheck %s --check-prefix=NAME
// NAME: cakec: error: malformed -D '9X=1': expected NAME=INTEGER or NAME=TYPE [E0503]
// RUN: %expect-exit 2 %cakec %s --verify-only -DBM=99999999999999999999 2>&1 | %FileCheck %s --check-prefix=BIG
// BIG: cakec: error: malformed -D 'BM=99999999999999999999': expected NAME=INTEGER or NAME=TYPE [E0503]
// RUN: %expect-exit 2 %cakec %s --verify-only -D BM=1 -D BK= 2>&1 | %FileCheck %s --check-prefix=SECOND
// SECOND: malformed -D 'BK=': expected NAME=INTEGER or NAME=TYPE [E0503]
target sm_80;
