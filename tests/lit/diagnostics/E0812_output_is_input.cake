// E0812: an output that is the input file (same inode) is refused before anything is written: exit 2, and
// the source is unchanged.  Old cakec overwrote the source and exited 0.
// RUN: rm -rf %t.dir && mkdir %t.dir && cp %s %t.dir/v.cake && cp %s %t.dir/orig.cake
// RUN: %expect-exit 2 %cakec %t.dir/v.cake -o %t.dir/v.cake 2>&1 | %FileCheck %s
// CHECK: cakec: error: refusing to write '{{.*}}v.cake': it is the input file [E0812]
// CHECK: hint: choose another output name with -o
// RUN: cmp %t.dir/v.cake %t.dir/orig.cake
// RUN: %expect-exit 2 %cakec %t.dir/v.cake --emit=ptx -o %t.dir/v.cake 2>/dev/null
// RUN: cmp %t.dir/v.cake %t.dir/orig.cake
// RUN: %expect-exit 2 %cakec %t.dir/v.cake --emit=cubin -o %t.dir/v.cake 2>/dev/null
// RUN: cmp %t.dir/v.cake %t.dir/orig.cake
// A hard link, a symbolic link, and the source read from stdin count as the input too.
// RUN: ln %t.dir/v.cake %t.dir/hard.ptx && ln -s v.cake %t.dir/soft.ptx
// RUN: %expect-exit 2 %cakec %t.dir/v.cake -o %t.dir/hard.ptx 2>/dev/null
// RUN: %expect-exit 2 %cakec %t.dir/v.cake -o %t.dir/soft.ptx 2>/dev/null
// RUN: %expect-exit 2 %cakec - --emit=ir -o %t.dir/v.cake < %t.dir/v.cake 2>/dev/null
// RUN: cmp %t.dir/v.cake %t.dir/orig.cake
// The manifest beside a cubin (OUT.json) is an output as well.
// RUN: cp %s %t.dir/k.cubin.json
// RUN: %expect-exit 2 %cakec %t.dir/k.cubin.json -o %t.dir/k.cubin 2>&1 | %FileCheck %s --check-prefix=MANIFEST
// MANIFEST: cakec: error: refusing to write '{{.*}}k.cubin.json': it is the input file [E0812]
// RUN: test ! -e %t.dir/k.cubin
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
