// RUN: %cakec --verify-only --verify-diagnostics %s
// A character that starts no token; non-ASCII outside comments is one error per run of bytes.
target sm_90a;
kernel k(A: f32[M]) threads(32) {
  let x = a $ b;      // expected-error E0101 {{unexpected character '$'}}
  let café = 1;       // expected-error E0101 {{unexpected character 'é' (U+00E9)}}
  let y = 1 → 2;      // expected-error E0101 {{unexpected character '→' (U+2192)}}
  let z = 3;
}
