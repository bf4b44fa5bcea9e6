// JSON diagnostics are written with nlohmann-json: a non-ASCII file name stays UTF-8 (old cakec escaped each
// byte as \u00XX: 'naïve.cake' became 'naÃ¯ve.cake'), and invalid UTF-8 still gives valid JSON.
// RUN: rm -rf %t.dir && mkdir %t.dir && printf 'target sm_80;\nkernel k() grid(1) threads(32) { x = 1; }\n' > %t.dir/naïve.cake
// RUN: %expect-exit 1 %cakec %t.dir/naïve.cake --verify-only --diagnostics-format=json > %t.dir/out.json
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8')); print(d[0]['file'].endswith('naïve.cake'), d[0]['code'])" %t.dir/out.json | %FileCheck %s
// CHECK: True E0301
// RUN: cp %t.dir/naïve.cake "$(printf '%t.dir/bad\377.cake')"
// RUN: %expect-exit 1 %cakec "$(printf '%t.dir/bad\377.cake')" --verify-only --diagnostics-format=json > %t.dir/bad.json
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1], encoding='utf-8')); print(d[0]['file'].endswith('bad\ufffd.cake'))" %t.dir/bad.json | %FileCheck %s --check-prefix=BAD
// BAD: True
target sm_80;
