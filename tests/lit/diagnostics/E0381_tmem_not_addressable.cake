// E0381: tensor memory has no loads and stores; only tcgen05 operations reach it.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_100a;

kernel k(X: f32[N] align(16)) grid(1) threads(128) {
  tmem acc: f32[128, 32];
  X[0] = acc[0, 0];              // expected-error E0381 {{'acc' is in tensor memory and cannot be loaded or stored by indexing}}
  acc[1, 1] = 2.0;               // expected-error E0381 {{'acc' is in tensor memory and cannot be loaded or stored by indexing}}
}
