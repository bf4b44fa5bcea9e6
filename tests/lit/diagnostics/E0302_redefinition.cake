// E0302: a name declared twice in one scope, a local shadowing a kernel-level name, and a reserved name.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let a = 1;
  // expected-note@-1 {{previous declaration of let binding 'a'}}
  let a = 2;                     // expected-error E0302 {{redefinition of 'a'}}
  for i in 0..4 {
    let x = 1.0;                 // expected-error E0302 {{redefinition of 'x'}}
  }
  let lane = 3;                  // expected-error E0302 {{redefinition of 'lane'}}
}
// expected-note@4 {{parameter 'x' is declared here; locals may not shadow kernel-level names}}
