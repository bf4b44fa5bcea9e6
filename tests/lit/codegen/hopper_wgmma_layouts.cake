// wgmma operand layouts: MN-major B ([K, N] without .T: transpose-b 1, LBO = the distance between column
// blocks, k-steps 16 rows = 2048 bytes apart), M-major A ([K, 64] read .T: transpose-a 1), and column-blocked
// arrays (rows wider than the 128-byte span): a K-major K = 128 tile steps into its second block after
// four instructions, an MN-major N = 128 tile has LBO = 64 rows * 128 bytes.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
target sm_90a;

kernel k() grid(1) threads(128) {
  shared q: bf16[64, 64] swizzle(128B);
  shared v: bf16[2][64, 64] swizzle(128B);
  shared at: bf16[64, 64] swizzle(128B);
  shared kb: bf16[64, 128] swizzle(128B);
  shared vb: bf16[64, 128] swizzle(128B);
  shared q2: bf16[64, 128] swizzle(128B);
  var o: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  var o2: frag<wgmma_acc, f32, 64, 128, 16> = 0.0;
  wgmma.fence;
  // MN-major B: LBO field 64 * 128 >> 4 = 512 (bits 16-29: 33554432), SBO 1024 >> 4 = 64 | 128B mode (1 << 30).
  // CHECK: or.b32 [[LOB:%r[0-9]+]], {{%r[0-9]+}}, 33554432;
  // CHECK-NEXT: mov.b32 [[HIB:%r[0-9]+]], 1073741888;
  // A K-major: LBO 1.
  // CHECK: or.b32 [[LOA:%r[0-9]+]], {{%r[0-9]+}}, 65536;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{{.*}}}, {{%rd[0-9]+}}, {{%rd[0-9]+}}, {{%p[0-9]+}}, 1, 1, 0, 1;
  // k-step 1: B 16 rows * 128 bytes = 2048 bytes = +128 in the address field; A +32 bytes = +2.
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOB]], 128;
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOA]], 2;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 1;
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOB]], 384;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 1;
  // CHECK-NOT: wgmma.mma_async
  // CHECK: wgmma.commit_group.sync.aligned;
  wgmma o += q * v[1];
  wgmma.commit;
  // M-major A ([K, 64] read .T) with a K-major B: transpose-a 1, transpose-b 0; both descriptors' k-steps.
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 0;
  // CHECK: add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, 128;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, 1, 1, 1, 0;
  // CHECK: wgmma.commit_group.sync.aligned;
  wgmma o += at.T * v[0].T;
  wgmma.commit;
  // K-major over two column blocks (K = 128): steps 0, 32, 64, 96 bytes, then block 1 at 64 * 128 = 8192 bytes:
  // +512 in the address field, then +514.
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOK:%r[0-9]+]], 6;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOK]], 512;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
  // CHECK: add.s32 {{%r[0-9]+}}, [[LOK]], 514;
  wgmma o += q2[:, 0 +: 128] * kb[0 +: 64, :].T;
  wgmma.commit;
  // MN-major N = 128 over two column blocks: LBO 8192 >> 4 = 512, transpose-b 1, N = 128.
  // CHECK: or.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 33554432;
  // CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, 1, 1, 0, 1;
  wgmma o2 += q * vb;
  wgmma.commit;
  wgmma.wait 0;
}
