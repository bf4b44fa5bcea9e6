// E0412: elect nested inside elect.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  elect {
    elect {                      // expected-error E0412 {{'elect' inside 'elect'}}
    }
  }
}
