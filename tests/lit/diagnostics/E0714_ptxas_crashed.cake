// E0714: a ptxas killed by a signal is reported as a crash (exit 3), not as "rejected the generated PTX".
// Under a tiny --ptxas-memory-limit the real ptxas dies this way, and the note says so.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: env FAKE_PTXAS_MODE=crash %expect-exit 3 %cakec %s -o %t.dir/k.cubin --ptxas %S/../driver/Inputs/hostile_ptxas.sh 2>&1 | %FileCheck %s
// CHECK: cakec: error: ptxas crashed: it was killed by SIGSEGV [E0714]
// CHECK-NEXT: cakec: note: ptxas ran with an address-space limit of 4096 MiB; a crash under it usually means ptxas ran out of memory
// RUN: %expect-exit 3 %cakec %s -o %t.dir/k.cubin --ptxas-memory-limit=16 2>&1 | %FileCheck %s --check-prefix=MEMORY
// MEMORY: cakec: error: ptxas crashed: it was killed by {{SIG[A-Z]+}} [E0714]
// MEMORY-NEXT: cakec: note: ptxas ran with an address-space limit of 16 MiB
// RUN: ls %t.dir | count 0
// RUN: env FAKE_PTXAS_MODE=crash %expect-exit 3 %cakec --verify-diagnostics %s -o %t.dir/k.cubin --ptxas %S/../driver/Inputs/hostile_ptxas.sh
// expected-error@* E0714 {{ptxas crashed}}
// expected-note@* {{address-space limit}}
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
