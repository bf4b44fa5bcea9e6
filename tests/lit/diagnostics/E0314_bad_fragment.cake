// E0314: fragment types that match no MMA instruction shape.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  var a: frag<mma_a, bf16, 16, 8, 32>;       // expected-error E0314 {{invalid fragment type: mma.sync fragments have shape m16n8k16 or m16n8k8, not m16n8k32}}
  var b: frag<mma_c, bf16, 16, 8, 16>;       // expected-error E0314 {{mma.sync accumulators (mma_c) are f32 or f16, not bf16}}
  var c: frag<wgmma_acc, f32, 64, 100, 16>;  // expected-error E0314 {{wgmma N must be a multiple of 8 in 8..256, not 100}}
  var d: frag<mma_x, f32, 16, 8, 16>;        // expected-error E0314 {{unknown fragment kind 'mma_x'}}
  var e: frag<wgmma_a, f8e4m3, 64, 64, 16>;  // expected-error E0314 {{wgmma with f8 inputs has K = 32, not 16}}
}
