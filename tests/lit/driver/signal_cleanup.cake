// SIGTERM, SIGINT or SIGHUP while ptxas runs: cakec kills ptxas's process group (ptxas and its children),
// removes ptxas's temporary folder and writes no output, then dies of the signal (exit status 128 + N).
// Old cakec left the folder and an orphaned ptxas behind.
// RUN: rm -rf %t.dir && %S/Inputs/signal_cleanup.sh %cakec %s %t.dir/term %S/Inputs/hostile_ptxas.sh TERM | %FileCheck %s --check-prefix=TERM
// TERM: cakec exit status 143
// TERM-NOT: FAIL
// TERM: left in TMPDIR: 0
// TERM-NEXT: outputs: 0
// RUN: %S/Inputs/signal_cleanup.sh %cakec %s %t.dir/int %S/Inputs/hostile_ptxas.sh INT | %FileCheck %s --check-prefix=INT
// INT: cakec exit status 130
// INT-NOT: FAIL
// INT: left in TMPDIR: 0
// INT-NEXT: outputs: 0
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
