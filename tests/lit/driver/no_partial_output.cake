// The compiler writes only the outputs it was asked for, and only when the whole compile succeeded:
// a failing compile creates no file (not even the default <input>.cubin next to the input) and leaves an
// existing output unchanged.
// RUN: rm -rf %t.dir && mkdir %t.dir && cp %S/Inputs/syntax_error.cake %t.dir/bad.cake
// RUN: %expect-exit 1 %cakec %t.dir/bad.cake -o %t.dir/k.cubin 2>/dev/null
// RUN: %expect-exit 1 %cakec %t.dir/bad.cake --emit=ptx -o %t.dir/k.ptx 2>/dev/null
// RUN: %expect-exit 1 %cakec %t.dir/bad.cake --emit=ptx 2>/dev/null
// RUN: %expect-exit 1 %cakec %t.dir/bad.cake 2>/dev/null
// RUN: %expect-exit 1 %cakec %t.dir/bad.cake --emit=ir -o %t.dir/k.cake 2>/dev/null
// RUN: ls %t.dir | %FileCheck %s --check-prefix=ONLY-INPUT
// ONLY-INPUT: bad.cake
// ONLY-INPUT-NOT: {{.}}
// RUN: echo previous > %t.dir/k.ptx
// RUN: %expect-exit 1 %cakec %t.dir/bad.cake --emit=ptx -o %t.dir/k.ptx 2>/dev/null
// RUN: echo previous | cmp %t.dir/k.ptx -
// --verify-only and --verify-diagnostics write nothing either.
// RUN: cp %s %t.dir/ok.cake && %cakec %t.dir/ok.cake --verify-only 2>/dev/null && %cakec %t.dir/ok.cake --verify-diagnostics --emit=ptx
// RUN: ls %t.dir | count 3
target sm_80;
