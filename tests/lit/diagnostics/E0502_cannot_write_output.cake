// E0502: an output that cannot be written is an environment failure (exit 3), and nothing is created.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %expect-exit 3 %cakec %s --emit=ir -o %t.dir/missing/out.cake 2>&1 | %FileCheck %s --check-prefix=NODIR
// NODIR: cakec: error: cannot write '{{.*}}missing/out.cake': No such file or directory [E0502]
// RUN: test ! -e %t.dir/missing
// RUN: %expect-exit 3 %cakec %s --emit=ir -o %t.dir 2>&1 | %FileCheck %s --check-prefix=ISDIR
// ISDIR: cakec: error: cannot write '{{.*}}.dir': it is a directory [E0502]
// RUN: ls %t.dir | count 0
target sm_80;
