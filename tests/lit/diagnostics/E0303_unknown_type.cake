// E0303: a type name that is not a CAKE type.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  var a: float = 0.0;            // expected-error E0303 {{unknown type 'float'}}
  var b: bf17 = 0.0;             // expected-error E0303 {{unknown type 'bf17'}}
  var c: f32x3;                  // expected-error E0303 {{unknown type 'f32x3'}}
}
