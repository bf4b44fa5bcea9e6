// E0317: members that builtins, roles and tiles do not have.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let a = tid.w;                 // expected-error E0317 {{builtin 'tid' has no member 'w'}}
  shared t: bf16[64, 64];
  role r = warpgroup(0) {
    let b = r.idx;               // expected-error E0317 {{role 'r' has no member 'idx'}}
  }
  let c = x.y;                   // expected-error E0317 {{f32 has no member 'y'}}
}
