// E0355: a swizzled array whose rows are wider than the span is stored in column blocks, which need a row
// count that is a multiple of 8 (each block starts on a swizzle atom).
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_90a;

kernel k() grid(1) threads(128) {
  shared v: bf16[12, 128] swizzle(128B);   // expected-error E0355 {{shared array 'v' cannot be stored in swizzle column blocks: its rows of 256 bytes are 2 column blocks of 12 rows, but a block needs a multiple of 8 rows}}
  shared w: bf16[2][64, 128] swizzle(128B);
}
