// The cubin is put in place before its manifest, and the manifest names the SHA-256 of the cubin it
// describes and the ptxas that made it.  When the cubin's write fails (here: a target that is /dev/full),
// the manifest is not touched (old cakec renamed the new manifest in first).  A full stdout is an error
// (E0502, exit 3) for JSON diagnostics and estimates (old: exit 0, output lost).
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec %s -o %t.dir/k.cubin
// RUN: sha256sum %t.dir/k.cubin | cut -c1-64 > %t.dir/sum
// RUN: grep -o '"cubin_sha256": "[0-9a-f]*"' %t.dir/k.cubin.json | cut -d'"' -f4 | cmp - %t.dir/sum
// RUN: %FileCheck %s --check-prefix=MANIFEST < %t.dir/k.cubin.json
// MANIFEST: "generator": "cakec {{[0-9]+\.[0-9]+\.[0-9]+}}",
// MANIFEST: "cubin_sha256": "{{[0-9a-f]+}}",
// MANIFEST-NEXT: "ptxas": {"path": "/{{.*}}ptxas", "version": "{{[0-9]+\.[0-9]+(\.[0-9]+)?}}"},
// RUN: %cakec %s -o %t.dir/f.cubin --ptxas %S/Inputs/hostile_ptxas.sh && %FileCheck %s --check-prefix=FAKE < %t.dir/f.cubin.json
// FAKE: "ptxas": {"path": "/{{.*}}hostile_ptxas.sh", "version": "99.9.999"},
// RUN: ln -s /dev/full %t.dir/full.cubin && echo old > %t.dir/full.cubin.json
// RUN: %expect-exit 3 %cakec %s -o %t.dir/full.cubin 2>&1 | %FileCheck %s --check-prefix=FULL
// FULL: cakec: error: cannot write '{{.*}}full.cubin': No space left on device [E0502]
// RUN: echo old | cmp - %t.dir/full.cubin.json
// RUN: ls %t.dir | %FileCheck %s --check-prefix=NO-TEMP
// NO-TEMP-NOT: cakec-tmp
// RUN: %expect-exit 3 %cakec %s --verify-only --diagnostics-format=json > /dev/full 2> %t.dir/err
// RUN: %expect-exit 3 %cakec %s --estimate --shape N=1024 > /dev/full 2>> %t.dir/err
// RUN: %expect-exit 3 %cakec %s --estimate --json --shape N=1024 > /dev/full 2>> %t.dir/err
// RUN: %FileCheck %s --check-prefix=STDOUT < %t.dir/err
// STDOUT: cakec: error: cannot write '<stdout>': No space left on device [E0502]
// STDOUT: cakec: error: cannot write '<stdout>': No space left on device [E0502]
// STDOUT: cakec: error: cannot write '<stdout>': No space left on device [E0502]
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
