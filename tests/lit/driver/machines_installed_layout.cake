// An installed cakec (bin/cakec with share/cake/machines beside bin/, the layout of `cmake --install` and of the
// Python wheel) finds the machine descriptions installed with it: a description that only the installed
// folder holds is found by name.
// RUN: rm -rf %t && mkdir -p %t/bin %t/share/cake/machines
// RUN: cp %cakec %t/bin/cakec
// RUN: sed 's/"name": *"h200"/"name": "installed_h200"/' %S/../../../machines/h200.json > %t/share/cake/machines/installed_h200.json
// RUN: env -u CAKE_MACHINES_DIR %t/bin/cakec %s --estimate --machine installed_h200 --shape N=1048576 | %FileCheck %s
// CHECK: installed_h200
// A name no folder holds lists every folder searched, the installed one included.
// RUN: env -u CAKE_MACHINES_DIR %expect-exit 1 %t/bin/cakec %s --estimate --machine no_such_gpu --shape N=1048576 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: no machine named 'no_such_gpu' in {{.*}}/share/cake/machines
target sm_90a;

kernel scale(X: f32[N], Y: f32[N]) grid(cdiv(N, 256)) threads(256) {
  let i = i32(block.x) * 256 + i32(tid.x);
  if i < N {
    Y[i] = X[i] * 2.0;
  }
}
