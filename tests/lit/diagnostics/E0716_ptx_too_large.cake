// E0716: PTX over --ptx-size-limit is not given to ptxas (which took 48 s on 2.6 MB of unrolled PTX): exit 1,
// nothing written; the check is cheap and comes before ptxas.  --emit=ptx is not limited.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %expect-exit 1 %cakec %s -o %t.dir/k.cubin --ptx-size-limit=1 --ptxas /bin/false 2>&1 | %FileCheck %s
// CHECK: cakec: error: the generated PTX is {{[0-9]+}} bytes; the limit for ptxas is 1048576 [E0716]
// CHECK: hint: unroll less
// RUN: ls %t.dir | count 0
// RUN: %cakec %s --emit=ptx -o %t.dir/k.ptx --ptx-size-limit=1 && test $(wc -c < %t.dir/k.ptx) -gt 1048576
// RUN: %cakec --verify-diagnostics %s -o %t.dir/k.cubin --ptx-size-limit=1
// expected-error@* E0716 {{the generated PTX is}}
target sm_80;

kernel k(X: f32[N]) requires(N >= 128) grid(1) threads(32) {
  var acc: f32 = 0.0;
  for a in 0..128 unroll {
    for b in 0..128 unroll {
      acc = acc * X[a] + X[b];
    }
  }
  X[0] = acc;
}
