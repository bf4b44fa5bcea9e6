// E0211: an fn declared inside a kernel body.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k() grid(1) threads(32) {
  fn twice(x: f32) -> f32 {      // expected-error E0211 {{an fn is declared inside a block}}
    return x + x;
  }
}
