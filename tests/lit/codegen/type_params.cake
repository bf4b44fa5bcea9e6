// Type parameters: one source serves bf16 and f16.  <T: type = bf16> is substituted before sema, so the
// tensor, shared and fragment element types, the conversions T(acc) and to_elem's T(x) (an fn's T is the
// calling kernel's) and sizeof(T) are those of the -D value.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s --check-prefixes=CHECK,BF16
// RUN: %cakec --no-verify %s --emit=ptx -D T=f16 -o - | %FileCheck %s --check-prefixes=CHECK,F16
// RUN: %cakec --no-verify %s --emit=ptx -D T=f16 -D U=i64 -o - | %FileCheck %s --check-prefix=I64
// Both assemble; the manifest records the type by name, after the integers.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec --no-verify %s -o %t.dir/bf16.cubin
// RUN: %cakec --no-verify %s -D T=f16 -o %t.dir/f16.cubin
// RUN: %FileCheck %s --check-prefix=MBF16 < %t.dir/bf16.cubin.json
// RUN: %FileCheck %s --check-prefix=MF16 < %t.dir/f16.cubin.json
// MBF16: "ct_params": {"BN": 8, "T": "bf16"},
// MBF16: {"name": "A", "kind": "tensor", "dtype": "bf16"
// MF16: "ct_params": {"BN": 8, "T": "f16"},
// MF16: {"name": "A", "kind": "tensor", "dtype": "f16"
// MF16: {"name": "C", "kind": "tensor", "dtype": "f16"
// MF16: "ct_params": {"U": "f32"},
// --emit=ir prints the declarations as written (not substituted), and prints them back the same way.
// RUN: %cakec --emit=ir %s -o %t.1.cake
// RUN: %cakec --emit=ir %t.1.cake -o %t.2.cake
// RUN: cmp %t.1.cake %t.2.cake
// RUN: %FileCheck %s --check-prefix=IR < %t.1.cake
// IR: fn to_elem(x: f32) -> T {
// IR: return T(x);
// IR: kernel mm<T: type = bf16, BN = 8>(A: T[16, 16] align(16), B: T[16, BN] align(16), C: T[16, 16] align(16), Bytes: i32[1])
// IR: var af: frag<mma_a, T, 16, 8, 16>;
// IR: Bytes[0] = BN * sizeof(T) + 1;
// IR: kernel sz<U: type = f32>(
target sm_80;

fn to_elem(x: f32) -> T {
  return T(x);
}

kernel mm<T: type = bf16, BN = 8>(A: T[16, 16] align(16), B: T[16, BN] align(16), C: T[16, 16] align(16), Bytes: i32[1])
  grid(1) threads(32)
{
  shared sa: T[16, 16] align(128);
  shared sb: T[16, BN] align(128);
  var acc: frag<mma_c, f32, 16, 8, 16> = 0.0;
  var af: frag<mma_a, T, 16, 8, 16>;
  var bf: frag<mma_b, T, 16, 8, 16>;
  ldmatrix af <- sa[lane % 16, (lane / 16) * 8 +: 8];
  ldmatrix.trans bf <- sb[lane % 16, 0 +: 8];
  // BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
  // F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
  mma.sync acc += af * bf;
  // BF16: cvt.rn.bf16x2.f32
  // F16: cvt.rn.f16x2.f32
  store C[0, 0] <- T(acc);
  // BF16: cvt.rn.bf16.f32
  // F16: cvt.rn.f16.f32
  let x: T = to_elem(acc[0]);
  C[i32(lane) % 16, 8] = x;
  // 8 * 2 + 1
  // CHECK: mov.b32 {{%r[0-9]+}}, 17;
  Bytes[0] = BN * sizeof(T) + 1;
}

kernel sz<U: type = f32>(Out: i32[1]) grid(1) threads(32) {
  // CHECK: mov.b32 {{%r[0-9]+}}, 407;
  // I64: mov.b32 {{%r[0-9]+}}, 807;
  Out[0] = sizeof(U) * 100 + 7;
}
