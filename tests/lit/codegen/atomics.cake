// Memory atomics (atom.* returns the old value) and reductions (red.*) on global and shared memory: the PTX
// instruction and type suffix per element type (frontend/Atomics.cpp), and the ordered-integer encoding.
// RUN: %cakec %s --no-verify --emit=ptx -o - | %FileCheck %s
// RUN: %cakec %s --no-verify -o %t.cubin
target sm_90a;

kernel atomics(H: u32[N], F: f32[N], X: i32[N], L: i64[N], B: bf16[R, N], G: f16[R, N], O: f32[N])
  grid(1) threads(128) {
  shared cnt: u32[32];
  shared fs: f32[32];
  let i = i32(tid.x);
  // CHECK: atom.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], 1;
  let a = atom.add(H[i], 1);
  // CHECK: atom.global.add.f32 %f{{[0-9]+}}, [%rd{{[0-9]+}}+4], %f{{[0-9]+}};
  let f = atom.add(F[i + 1], 2.5);
  // CHECK: atom.global.cas.b32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], 0, 7;
  let c = atom.cas(H[i], 0, 7);
  // CHECK: atom.global.exch.b32 %f{{[0-9]+}}, [%rd{{[0-9]+}}], %f{{[0-9]+}};
  let e = atom.exch(F[i], 1.0);
  // CHECK: atom.global.min.s32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], -3;
  let m = atom.min(X[i], -3);
  // The float max through the ordered-integer encoding: sign bit set for x >= 0, all bits flipped below.
  // CHECK: mov.b32 [[BITS:%r[0-9]+]], %f{{[0-9]+}};
  // CHECK-NEXT: shr.s32 [[SIGN:%r[0-9]+]], [[BITS]], 31;
  // CHECK-NEXT: or.b32 [[MASK:%r[0-9]+]], [[SIGN]], -2147483648;
  // CHECK-NEXT: xor.b32 {{%r[0-9]+}}, [[BITS]], [[MASK]];
  // CHECK: atom.global.max.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
  let mx = atom.max(H[i], ordered(f));
  // CHECK: atom.global.add.u64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], %rd{{[0-9]+}};
  let s = atom.add(L[i], i64(i));
  // CHECK: atom.global.max.s64
  let smax = atom.max(L[i], i64(5));
  // CHECK: atom.global.and.b64
  // CHECK: atom.global.or.b32
  // CHECK: atom.global.xor.b32
  let band = atom.and(L[i], i64(12));
  let bor = atom.or(X[i], 3);
  let bxor = atom.xor(H[i], 1);
  // Statement forms: red.
  // CHECK: red.global.add.u32 [%rd{{[0-9]+}}], 1;
  red.add H[i], 1;
  // CHECK: red.global.min.s32 [%rd{{[0-9]+}}], 5;
  red.min X[i], 5;
  // CHECK: red.global.or.b32
  red.or H[i], u32(8);
  // Packed 16-bit float pairs as 2-element slices.
  // CHECK: red.global.add.noftz.bf16x2 [%rd{{[0-9]+}}], %r{{[0-9]+}};
  red.add B[0, 2 * i +: 2], bf16x2(f, f);
  // CHECK: red.global.add.noftz.f16x2 [%rd{{[0-9]+}}], %r{{[0-9]+}};
  red.add G[0, 2 * i +: 2], f16x2(f, e);
  // CHECK: atom.global.add.noftz.bf16x2 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
  let old2 = atom.add(B[1, 2 * i +: 2], bf16x2(f, e));
  // Shared memory: 32-bit shared-window addresses.
  // CHECK: red.shared.add.u32 [%r{{[0-9]+}}], 1;
  red.add cnt[i % 32], 1;
  // CHECK: atom.shared.add.f32 %f{{[0-9]+}}, [%r{{[0-9]+}}+128], %f{{[0-9]+}};
  let sf = atom.add(fs[i % 32], 1.0);
  // unordered: u ^ ((~u >>s 31) | 0x80000000)
  // CHECK: not.b32 [[NOT:%r[0-9]+]], [[U:%r[0-9]+]];
  // CHECK-NEXT: shr.s32 [[S2:%r[0-9]+]], [[NOT]], 31;
  // CHECK-NEXT: or.b32 [[M2:%r[0-9]+]], [[S2]], -2147483648;
  // CHECK-NEXT: xor.b32 {{%r[0-9]+}}, [[U]], [[M2]];
  O[i] = f + e + sf + unordered(mx) + f32(a + c + bxor) + f32(m + bor) + f32(s + smax + band) + f32(old2[0]);
}
