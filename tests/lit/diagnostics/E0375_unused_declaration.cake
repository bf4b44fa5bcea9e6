// E0375 (warning, -Wunused): a shared array, mbarrier or named barrier that nothing in the kernel names.  A
// use inside an inlined fn counts; -Wno-unused silences it, -Werror=unused makes it an error (exit 1).
// RUN: %cakec --verify-only --verify-diagnostics %s
// RUN: %cakec --verify-only -Wno-unused %s 2>&1 | %FileCheck %s --check-prefix=OFF
// OFF-NOT: warning:
// RUN: %expect-exit 1 %cakec --verify-only -Werror=unused %s 2>&1 | %FileCheck %s --check-prefix=ERR
// ERR: error: shared array 'scratch' is declared but never used [E0375]
target sm_90a;

fn touch(shared t: f32[32], i: i32) {
  t[i] = 0.0;
}

kernel k(X: f32[N]) grid(1) threads(64) {
  shared scratch: f32[256];        // expected-warning E0375 {{shared array 'scratch' is declared but never used}}
  shared used_in_fn: f32[32];
  mbarrier idle arrivals(1);       // expected-warning E0375 {{mbarrier 'idle' is declared but never used}}
  barrier spare id(1) threads(64); // expected-warning E0375 {{named barrier 'spare' is declared but never used}}
  touch(used_in_fn, i32(lane));
  X[0] = 1.0;
}
