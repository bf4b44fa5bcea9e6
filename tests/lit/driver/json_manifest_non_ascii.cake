// Every JSON string cakec writes goes through nlohmann-json (src/support/JsonText.h): the manifest of a file
// with a non-ASCII name keeps it as UTF-8, and an invalid-UTF-8 name becomes U+FFFD, so the manifest stays
// valid JSON (the old hand-written escaper wrote the raw byte). Same input, same bytes.
// RUN: rm -rf %t.dir && mkdir %t.dir && cp %s %t.dir/naïve.cake
// RUN: %cakec %t.dir/naïve.cake -o %t.dir/a.cubin
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1], encoding='utf-8')); print(m['source'].endswith('naïve.cake'))" %t.dir/a.cubin.json | %FileCheck %s
// CHECK: True
// RUN: cp %s "$(printf '%t.dir/bad\377.cake')"
// RUN: %cakec "$(printf '%t.dir/bad\377.cake')" -o %t.dir/b.cubin
// RUN: %python -c "import json,sys; m=json.load(open(sys.argv[1], encoding='utf-8')); print(m['source'].endswith('bad\ufffd.cake'))" %t.dir/b.cubin.json | %FileCheck %s
// RUN: cp %t.dir/b.cubin.json %t.dir/b.first.json
// RUN: %cakec "$(printf '%t.dir/bad\377.cake')" -o %t.dir/b.cubin
// RUN: cmp %t.dir/b.cubin.json %t.dir/b.first.json
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
