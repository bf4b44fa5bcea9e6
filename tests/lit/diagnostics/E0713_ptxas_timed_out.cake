// E0713: ptxas past --ptxas-time-limit is killed with its process group (here a ptxas that never exits and
// has a child); exit 1, nothing written, nothing left running.  Old cakec waited forever.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: env FAKE_PTXAS_MODE=hang FAKE_PTXAS_PIDFILE=%t.dir/pids %expect-exit 1 %cakec %s -o %t.dir/k.cubin --ptxas %S/../driver/Inputs/hostile_ptxas.sh --ptxas-time-limit=1 2>&1 | %FileCheck %s
// CHECK: cakec: error: ptxas did not finish within 1 s and was stopped [E0713]
// CHECK: hint: {{.*}}--ptxas-time-limit=SECONDS
// RUN: ls %t.dir | %FileCheck %s --check-prefix=FILES
// FILES-NOT: k.cubin
// RUN: for i in $(seq 100); do alive=0; for p in $(cat %t.dir/pids); do kill -0 $p 2>/dev/null && alive=1; done; [ $alive = 0 ] && break; sleep 0.1; done; [ $alive = 0 ]
// RUN: env FAKE_PTXAS_MODE=hang %cakec --verify-diagnostics %s -o %t.dir/k.cubin --ptxas %S/../driver/Inputs/hostile_ptxas.sh --ptxas-time-limit=1
// expected-error@* E0713 {{did not finish within 1 s}}
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
