// E0308: a call to a name that is neither an intrinsic nor a type.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  let a = exp(x);                // expected-error E0308 {{unknown function 'exp'}}
  let b = maxx(x, 1.0);          // expected-error E0308 {{unknown function 'maxx'}}
}
