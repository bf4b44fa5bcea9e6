// Global and shared memory: element and vector accesses, 64-bit global addressing with row-major strides from
// shape variables, 32-bit shared addresses at sema's offsets in the dynamic buffer, the swizzle XOR.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel mem(A: f32[M, K] align(16), B: bf16[M, K] align(16), C: f32[M, K]) grid(1) threads(128) {
  shared s1: f32[4, 64] align(16);
  shared s2: bf16[2][8, 64] swizzle(128B);
  let t = i32(tid.x);
  // Row stride in bytes computed once at entry in 64-bit: K * 4 (f32) and K * 2 (bf16).
  // CHECK-LABEL: .entry mem(
  // CHECK: cvt.s64.s32 [[K64:%rd[0-9]+]], {{%r[0-9]+}};
  // CHECK: mul.lo.s64 [[SA:%rd[0-9]+]], [[K64]], 4;
  // CHECK: mov.u32 [[SMEM:%r[0-9]+]], cake_smem;
  // f32x4 from global: one 16-byte load; A is never written, so ld.global.nc.
  // CHECK: mul.lo.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[SA]];
  // CHECK: ld.global.nc.v4.f32 {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}}, [%rd{{[0-9]+}}+32];
  let v = A[t, 8 +: 4];
  // Shared store of the vector at row 1: offset 1 * 256 bytes from s1's start (s1 is at offset 0).
  // CHECK: shl.b32 [[O:%r[0-9]+]], {{%r[0-9]+}}, 2;
  // CHECK: add.s32 [[AD:%r[0-9]+]], [[SMEM]], [[O]];
  // CHECK: st.shared.v4.f32 [[[AD]]+256], {%f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}, %f{{[0-9]+}}};
  s1[1, t +: 4] = v;
  syncthreads;
  // A constant shared address is an immediate offset from the base register.
  // CHECK: ld.shared.f32 {{%f[0-9]+}}, [[[SMEM]]+12];
  // C is written: plain ld.global.
  // CHECK: ld.global.f32
  // CHECK: st.global.f32
  C[t, 0] = s1[0, 3] + C[t, 0];
  // 8 x f32 = 32 bytes: two 16-byte accesses.
  // CHECK: ld.global.nc.v4.f32
  // CHECK: ld.global.nc.v4.f32
  // CHECK: st.global.v4.f32
  // CHECK: st.global.v4.f32
  C[t, 0 +: 8] = A[t, 0 +: 8];
  // Swizzled shared tile (128B: bits 4-6 ^= bits 7-9 of the byte offset); sema places s2 at 1024 (aligned).
  // The destination address (s2[1] starts 1024 bytes into s2) is computed first, then B is read (B is
  // written below, so no .nc).
  // CHECK: add.s32 [[FULL:%r[0-9]+]], {{%r[0-9]+}}, 1024;
  // CHECK-NEXT: shr.u32 [[SH:%r[0-9]+]], [[FULL]], 3;
  // CHECK-NEXT: and.b32 [[X:%r[0-9]+]], [[SH]], 112;
  // CHECK-NEXT: xor.b32 [[SW:%r[0-9]+]], [[FULL]], [[X]];
  // CHECK-NEXT: add.s32 [[SA2:%r[0-9]+]], [[SMEM]], [[SW]];
  // CHECK: ld.global.v4.b32
  // CHECK-NEXT: st.shared.v4.b32 [[[SA2]]+1024],
  s2[1][t / 8, (t % 8) * 8 +: 8] = B[t, 0 +: 8];
  // A constant swizzled offset folds: row 1, col 0 of s2[0] -> 128 ^ 16 = 144.
  // CHECK: ld.shared.b16 {{%rs[0-9]+}}, [[[SMEM]]+1168];
  B[t, 0] = s2[0][1, 0];
}
