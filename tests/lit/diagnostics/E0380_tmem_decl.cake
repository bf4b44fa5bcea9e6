// E0380: a tmem array is [.., 128, N] of 32-bit (or 16-bit) elements in at most 512 columns.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_100a;

kernel k() grid(1) threads(128) {
  tmem big: f32[3][128, 256];    // expected-error E0380 {{invalid tensor-memory array 'big': 768 columns exceed the 512 columns of tensor memory an SM has}}
  tmem lanes: f32[64, 32];       // expected-error E0380 {{invalid tensor-memory array 'lanes': the rows are the 128 lanes of tensor memory, not 64}}
  tmem wide: f8e4m3[128, 64];    // expected-error E0380 {{invalid tensor-memory array 'wide': the elements are f32, i32, u32 (one 32-bit column each) or bf16 / f16 (two per column), not f8e4m3}}
  tmem flat: f32[128];           // expected-error E0380 {{invalid tensor-memory array 'flat': expected a type such as f32[S][128, N]: the innermost group is [128 lanes, N columns]}}
}
