// E0806: an sm_90a kernel cannot be timed on an A100 (the machine lists the targets it runs).
// RUN: %cakec %s --estimate --shape N=64 --machine a100 --no-verify --verify-diagnostics
target sm_90a; // expected-error E0806 {{machine 'a100' cannot run code for sm_90a}}
kernel k(A: f32[N]) requires(N >= 1) grid(cdiv(N, 128)) threads(128) {
  if i32(block.x) * 128 + i32(tid.x) < N { A[i32(block.x) * 128 + i32(tid.x)] = 0.0; }
}
