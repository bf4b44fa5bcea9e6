// E0358: a column slice of a wgmma accumulator is whole 8-column groups inside N.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_90a;

kernel k(D: f32[M, N] align(16)) grid(1) threads(128) {
  var acc: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  store D[0, 0] <- acc[:, 4 +: 64];     // expected-error E0358 {{invalid column slice of a wgmma accumulator: columns 4 +: 64 are not 8-column groups inside N = 128}}
  store D[0, 0] <- acc[:, 96 +: 64];    // expected-error E0358 {{invalid column slice of a wgmma accumulator: columns 96 +: 64 are not 8-column groups inside N = 128}}
  store D[0, 0] <- acc[0 +: 16, 0 +: 64];   // expected-error E0358 {{invalid column slice of a wgmma accumulator: the slice takes every row and a column range: [:, c0 +: n]}}
  store D[0, 0] <- acc[:, 0 +: 12];     // expected-error E0358 {{invalid column slice of a wgmma accumulator: the length 12 is not a positive multiple of 8 up to N = 128}}
  store D[0, 0] <- acc[:, 0 +: 64];
}
