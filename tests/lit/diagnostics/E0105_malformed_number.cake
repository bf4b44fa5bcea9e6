// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k() threads(32) {
  let a = 12ab;      // expected-error E0105 {{malformed number '12ab'}}
  let b = 0x;        // expected-error E0105 {{malformed number '0x'}}
  let c = 1e;        // expected-error E0105 {{malformed number '1e'}}
  let d = 0b12;      // expected-error E0105 {{malformed number '0b12'}}
  let e = 1.5f;      // expected-error E0105 {{malformed number '1.5f'}}
  for i in 0..4 { }
}
