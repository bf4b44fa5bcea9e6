// RUN: %cakec --verify-only --verify-diagnostics %s
// E0671: vector accesses that fault with a misaligned address on the GPU: a start that is not a multiple of
// the vector length (constant or thread-varying), a tensor without align(16), a shared store at +4 bytes
// (st.shared.v4.f32 [%r+4]) and a row pitch (K bf16 elements) that requires(...) does not make a multiple
// of 16 bytes.
target sm_80;

kernel k(X: f32[N] align(16), Y: f32[N], M2: bf16[R, K] align(16)) requires(N >= 128, R >= 2, K >= 8)
  grid(1) threads(32)
{
  shared s: f32[64];
  let t = i32(tid.x);
  // expected-error@+2 E0671 {{load 'X[1 +: 4]' may be misaligned: its byte offset from the base can be 4, not a multiple of 16 (a 16-byte vector access)}}
  // expected-note@+1 {{counterexample: }}
  let a = X[1 +: 4];
  // expected-error@+2 E0671 {{load 'X[t +: 4]' may be misaligned: its byte offset from the base can be}}
  // expected-note@+1 {{counterexample: }}
  let b = X[t +: 4];
  // expected-error@+2 E0671 {{load 'Y[0 +: 4]' may be misaligned: the base of 'Y' is not declared aligned; a 16-byte vector access needs 16 bytes}}
  // expected-note@8 {{'Y' is declared here}}
  let c = Y[0 +: 4];
  if t == 0 {
    // expected-error@+2 E0671 {{store 's[1 +: 4]' may be misaligned: its byte offset from the shared window can be 4}}
    // expected-note@+1 {{counterexample: }}
    s[1 +: 4] = a;
  }
  // expected-error@+2 E0671 {{load 'M2[1, 0 +: 8]' may be misaligned: its byte offset from the base can be}}
  // expected-note@+1 {{counterexample: }}
  let d = M2[1, 0 +: 8];
  M2[0, 0 +: 8] = d;
  X[4 * t +: 4] = a + b + c;
}
