// 16-byte vector accesses of tensors declared without align(16): compiled with --no-verify (so E0671 does
// not stop it), the manifest still records "align": 16 for both tensors, so that the runtime refuses a
// 4-byte-aligned pointer instead of launching a misaligned ld/st.global.v4 (the old manifest had no align).
// RUN: %cakec %s --no-verify -o %t.cubin
// RUN: %FileCheck %s < %t.cubin.json
// CHECK: "name": "X", "kind": "tensor", "dtype": "f32", "dims": ["N"], "align": 16
// CHECK: "name": "Y", "kind": "tensor", "dtype": "f32", "dims": ["N"], "align": 16
// CHECK: "name": "Z", "kind": "tensor", "dtype": "f32", "dims": ["N"]}
target sm_80;
kernel k(X: f32[N], Y: f32[N], Z: f32[N]) requires(N % 4 == 0) grid(cdiv(N, 128)) threads(32) {
  let i = (i32(block.x) * 32 + i32(tid.x)) * 4;
  if i < N {
    Y[i +: 4] = X[i +: 4];
    Z[i] = 1.0;
  }
}
