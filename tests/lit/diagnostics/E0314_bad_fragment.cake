// E0314: fragment types that match no MMA instruction shape.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N], x: f32) grid(M / BM) threads(128) {
  var a: frag<mma_a, bf16, 16, 8, 32>;       // expected-error E0314 {{invalid fragment type: mma.sync fragments have shape m16n8k16 or m16n8k8, not m16n8k32}}
  var b: frag<mma_c, f8e4m3, 16, 8, 16>;     // expected-error E0314 {{mma_c fragments hold f32, f16, bf16, integer or pred elements, not f8e4m3}}
  var r: frag<wgmma_row, f32, 64, 64, 16>;   // expected-error E0314 {{a row vector is written with M only: frag<wgmma_row, f32, 64>}}
  var s: frag<mma_row, f32, 64>;             // expected-error E0314 {{mma_row vectors have M = 16 (the rows of an mma_c tile), not 64}}
  var c: frag<wgmma_acc, f32, 64, 100, 16>;  // expected-error E0314 {{wgmma N must be a multiple of 8 in 8..256, not 100}}
  var d: frag<mma_x, f32, 16, 8, 16>;        // expected-error E0314 {{unknown fragment kind 'mma_x'}}
  var e: frag<wgmma_a, f8e4m3, 64, 64, 16>;  // expected-error E0314 {{wgmma with f8 inputs has K = 32, not 16}}
  var f: frag<mma_col, f32, 16>;             // expected-error E0314 {{mma_col vectors have N = 8 (the columns of an mma_c tile), not 16}}
  var g: frag<wgmma_col, f32, 100>;          // expected-error E0314 {{wgmma_col vectors have N, the columns of a wgmma accumulator, a multiple of 8 in 8..256, not 100}}
  var h: frag<wgmma_col, f32, 64, 64, 16>;   // expected-error E0314 {{a column vector is written with N only: frag<wgmma_col, f32, N>}}
}
