// E0408: launch clauses with invalid values.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k<BM = 64>(A: f32[M, N]) grid(M / BM, 1, 1, 1) threads(100) cluster(4, 4, 2) {
  // expected-error@-1 E0408 {{invalid launch configuration: grid(...) takes 1 to 3 extents, 4 given}}
  // expected-error@-2 E0408 {{threads(100): the thread count must be a multiple of 32 in 32..1024}}
  // expected-error@-3 E0408 {{a cluster of 32 CTAs is larger than 16 (8 portable)}}
}
kernel k2<BM = 64>(A: f32[M, N]) grid(0) threads(2048) {
  // expected-error@-1 E0408 {{the grid extent '0' is 0; extents must be positive}}
  // expected-error@-2 E0408 {{threads(2048): the thread count must be a multiple of 32 in 32..1024}}
}
