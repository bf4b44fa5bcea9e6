// E0209 for an atomic call used as a statement: the hint names the red form (or binding the old value).
// RUN: not %cakec --verify-only %s 2>&1 | %FileCheck %s
target sm_80;
kernel k(H: u32[N]) grid(1) threads(32) {
  atom.add(H[0], 1);
  // CHECK: error: expression result unused{{.*}}[E0209]
  // CHECK: hint: without a result, write the reduction 'red.add T[i], v;'
  atom.cas(H[0], 0, 1);
  // CHECK: error: expression result unused{{.*}}[E0209]
  // CHECK: hint: bind the old value: let old = atom.cas(...);
}
