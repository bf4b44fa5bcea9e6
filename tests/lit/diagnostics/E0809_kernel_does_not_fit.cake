// E0809: a block that needs more registers than an SM has cannot launch: 1024 threads x 255 registers.
// (--no-verify: the verifier's own register check, E0648, would stop the compile first.)
// RUN: %cakec %s --estimate --shape N=1024 --no-verify --verify-diagnostics
target sm_80;
kernel k(A: f32[N]) requires(N >= 1) grid(cdiv(N, 1024)) threads(1024) { // expected-error E0809 {{kernel 'k' cannot run on a100: the block needs 262144 registers, the SM has 65536}}
  var big: f32[300];
  for i in 0..300 unroll { big[i] = 1.0; }
  if i32(block.x) * 1024 + i32(tid.x) < N { A[i32(block.x) * 1024 + i32(tid.x)] = big[7]; }
}
