// E0382: tcgen05.mma / ld / st operands: D an f32 tmem tile [128, N] (N % 16 == 0, 16..256), A [128, K],
// B a shared [N, K] tile read .T, bf16 x bf16 or f16 x f16; a tmem_acc fragment as wide as its tile.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_100a;

kernel k() grid(1) threads(128) {
  shared a: bf16[128, 64] swizzle(128B) align(1024);
  shared b: bf16[256, 64] swizzle(128B) align(1024);
  shared h: f16[256, 64] swizzle(128B) align(1024);
  tmem acc: f32[128, 256];
  tmem odd: f32[128, 200];
  if tid.x == 0 {
    tcgen05.mma acc += a * b;            // expected-error E0382 {{invalid tcgen05.mma operand: B must be K-major: a tile stored [N, K] read as b.T (MN-major B is not lowered)}}
    tcgen05.mma acc += a * h.T;          // expected-error E0382 {{invalid tcgen05.mma operand: kind::f16 multiplies bf16 by bf16 or f16 by f16, not bf16 by f16}}
    tcgen05.mma odd += a * b.T;          // expected-error E0382 {{invalid tcgen05.mma operand: M = 128 needs N a multiple of 16 in 16..256, not 200}}
    tcgen05.mma acc[:, 0 +: 128] += a * b.T;  // expected-error E0382 {{invalid tcgen05.mma operand: B is [K, N] = [64, 256]; it needs N = 128 and K a multiple of 16}}
  }
  var f: frag<tmem_acc, f32, 128, 16, 16>;
  tcgen05.ld f <- acc[:, 0 +: 32];       // expected-error E0382 {{invalid tcgen05.ld operand: the tile is f32[128, 32] (tmem) but the fragment holds [128, 16]}}
}
