// --emit=ir prints canonical IR to stdout, or to -o FILE (then stdout stays empty); the same input gives
// the same bytes every time, and printing the canonical form again is a fixed point.
// RUN: %cakec %s --emit=ir > %t.stdout.cake
// RUN: %FileCheck %s < %t.stdout.cake
// CHECK: target sm_80;
// CHECK-NOT: RUN
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec %s --emit=ir -o %t.dir/out.cake | count 0
// RUN: cmp %t.stdout.cake %t.dir/out.cake
// -o with a .cake extension implies --emit=ir; '-o -' is stdout.
// RUN: %cakec %s -o %t.dir/implied.cake
// RUN: cmp %t.stdout.cake %t.dir/implied.cake
// RUN: %cakec %s --emit=ir -o - | cmp %t.stdout.cake -
// Deterministic, and canonical IR is a fixed point of --emit=ir.
// RUN: %cakec %s --emit=ir | cmp %t.stdout.cake -
// RUN: %cakec %t.stdout.cake --emit=ir | cmp %t.stdout.cake -
// No temporary file is left behind.
// RUN: ls %t.dir | count 2
// An existing output is replaced atomically, and kept when the compile fails.
// RUN: echo previous > %t.dir/keep.cake
// RUN: %expect-exit 1 %cakec %S/Inputs/syntax_error.cake --emit=ir -o %t.dir/keep.cake 2>/dev/null
// RUN: echo previous | cmp %t.dir/keep.cake -

target   sm_80 ;   // spacing and comments are not part of the canonical form
