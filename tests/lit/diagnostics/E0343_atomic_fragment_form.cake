// E0343: the fragment form of red: only red.add, an f32 accumulator, an f32 destination of rank >= 2.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k(C: f32[M, N], H: f16[M, N], V: f32[N]) grid(1) threads(32) {
  var acc: frag<mma_c, f32, 16, 8, 16> = 0.0;
  var hacc: frag<mma_c, f16, 16, 8, 16> = 0.0;
  red.max C[0, 0] <- acc;        // expected-error E0343 {{'red.max' of a fragment: only red.add adds a fragment}}
  red.add C[0, 0] <- hacc;       // expected-error E0343 {{the source must be an f32 accumulator fragment}}
  red.add H[0, 0] <- acc;        // expected-error E0343 {{the destination tensor must have f32 elements, not f16}}
  red.add V[0] <- acc;           // expected-error E0343 {{rank 2 or more}}
}
