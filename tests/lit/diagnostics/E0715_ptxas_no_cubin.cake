// E0715: a ptxas that exits 0 without writing its output gives no 0-byte cubin: exit 3, nothing written.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: env FAKE_PTXAS_MODE=nocubin %expect-exit 3 %cakec %s -o %t.dir/k.cubin --ptxas %S/../driver/Inputs/hostile_ptxas.sh 2>&1 | %FileCheck %s
// CHECK: cakec: error: '{{.*}}hostile_ptxas.sh' exited with status 0 but wrote no cubin [E0715]
// RUN: ls %t.dir | count 0
// RUN: env FAKE_PTXAS_MODE=nocubin %expect-exit 3 %cakec --verify-diagnostics %s -o %t.dir/k.cubin --ptxas %S/../driver/Inputs/hostile_ptxas.sh
// expected-error@* E0715 {{wrote no cubin}}
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
