// E0704: 'unroll' needs constant bounds and a bounded trip count.
// RUN: %cakec --no-verify --verify-diagnostics --emit=ptx -o %t.ptx %s
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  for i in 0..N unroll {       // expected-error E0704 {{cannot unroll this loop: this bound or step is not a compile-time constant}}
    X[i] = 0.0;
  }
  for j in 0..100000 unroll {  // expected-error E0704 {{100000 iterations (the limit is 4096)}}
    X[j] = 1.0;
  }
}
