// What codegen knows about index values: tid.x < threads, lane < 32, warp < threads / 32, and a shape
// variable that a requires clause pins to a compile-time value.  Comparisons those ranges decide are
// constants (no setp, no branch), and a pinned shape variable is its value (its strides fold).
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s
target sm_80;

// CHECK-LABEL: .entry copy_rows(
kernel copy_rows<HD = 64>(X: bf16[N, D] align(16), Y: bf16[N, D] align(16))
  requires(D == HD, N >= 256) grid(cdiv(N, 128)) threads(256)
{
  // D is HD: never loaded, and X's row stride is the constant HD * 2 bytes
  // CHECK-NOT: ld.param.u32 {{%r[0-9]+}}, [cake_shape_D];
  // CHECK: ld.param.u32 {{%r[0-9]+}}, [cake_shape_N];
  let t = i32(tid.x);
  let m0 = i32(block.x) * 128;
  for v in 0..4 unroll {
    let idx = v * 256 + t;
    // 128 rows x 8 segments = 1024 = 4 x 256: every thread passes, so no guard is emitted
    // CHECK-NOT: setp.lt.s32 {{%p[0-9]+}}, {{%r[0-9]+}}, 1024;
    if idx < 128 * HD / 8 {
      let r = idx / (HD / 8);
      let c = (idx % (HD / 8)) * 8;
      if m0 + r < N {
        Y[m0 + r, c +: 8] = X[m0 + r, c +: 8];
      }
    }
  }
  // the copies' addresses differ only in their immediate offsets (32 rows x 128 bytes apart)
  // CHECK: mul.wide.s32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 128;
  // CHECK: ld.global.nc.v4.b32 {{.*}}[{{%rd[0-9]+}}];
  // CHECK: ld.global.nc.v4.b32 {{.*}}[{{%rd[0-9]+}}+4096];
  // CHECK: ld.global.nc.v4.b32 {{.*}}[{{%rd[0-9]+}}+8192];
  // a comparison the ranges do not decide stays: tid.x < 200 with 256 threads
  // CHECK: setp.lt.s32 {{%p[0-9]+}}, {{%r[0-9]+}}, 200;
  if t < 200 {
    Y[t, 0] = X[t, 0];
  }
  // lane < 32 always; warp >= 8 never (8 warps)
  // CHECK-NOT: setp.lt.s32 {{%p[0-9]+}}, {{%r[0-9]+}}, 32;
  // CHECK-NOT: setp.ge.s32 {{%p[0-9]+}}, {{%r[0-9]+}}, 8;
  if i32(lane) < 32 && i32(warp) < 8 {
    Y[0, t % 64] = X[0, t % 64];
  }
  if i32(warp) >= 8 {
    Y[1, 0] = X[1, 0];
  }
}
