// E0712: an MN-major wgmma B tile must be whole column blocks one swizzle span wide; a [K, 32] slice of a
// 128-byte-swizzled array is half a block, which no matrix descriptor describes.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_90a;

kernel k() grid(1) threads(128) {
  shared q: bf16[64, 64] swizzle(128B);
  shared v: bf16[64, 64] swizzle(128B);
  var o: frag<wgmma_acc, f32, 64, 32, 16> = 0.0;
  wgmma.fence;
  wgmma o += q * v[:, 0 +: 32];   // expected-error E0712 {{no wgmma matrix descriptor describes an MN-major tile that is not whole column blocks of 64 columns (the swizzle span) starting on a block boundary (array rows of 128 bytes, swizzle 128B)}}
  wgmma.commit;
  wgmma.wait 0;
}
