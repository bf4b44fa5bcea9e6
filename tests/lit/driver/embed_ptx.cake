// --embed-ptx: the output is a fat binary (NVIDIA's fatbinary, beside ptxas) holding the cubin and its PTX,
// and the manifest says so; without it the output is the cubin itself (an ELF file).
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %cakec %s -o %t.dir/k.cubin
// RUN: od -A n -t x1 -N 4 %t.dir/k.cubin | %FileCheck %s --check-prefix=ELF
// ELF: 7f 45 4c 46
// RUN: not grep -q ptx_embedded %t.dir/k.cubin.json
// RUN: %cakec %s -o %t.dir/f.cubin --embed-ptx
// The fat binary's magic number 0xba55ed50, little-endian.
// RUN: od -A n -t x1 -N 4 %t.dir/f.cubin | %FileCheck %s --check-prefix=FATBIN
// FATBIN: 50 ed 55 ba
// RUN: %FileCheck %s --check-prefix=MANIFEST < %t.dir/f.cubin.json
// MANIFEST: "cubin_sha256":
// MANIFEST: "ptx_embedded": true,
// The PTX is in it (fatbinary compresses it; the kernel's name is in the cubin's symbols either way).
// RUN: grep -q scale_by_two %t.dir/f.cubin
// fatbinary missing or failing: tests/lit/diagnostics/E0718_fatbinary_failed.cake.
target sm_80;

kernel scale_by_two(X: f32[N], Y: f32[N]) grid(cdiv(N, 256)) threads(256) {
  let i = i32(block.x) * 256 + i32(tid.x);
  if i < N {
    Y[i] = X[i] * 2.0;
  }
}
