// ptxas lookup skips relative PATH entries and a relative $CUDA_HOME (they would run a ptxas planted in the
// current folder) and skips a directory named ptxas instead of stopping at it; the manifest records the
// absolute path of the ptxas used.
// RUN: rm -f %t.marker
// RUN: cd %S/Inputs/untrusted && env PLANTED_MARKER=%t.marker PATH=bin:%S/Inputs/untrusted/dir:/usr/local/cuda/bin:/usr/bin:/bin CUDA_HOME=. %cakec %s -o %t.cubin
// RUN: test ! -e %t.marker
// RUN: %FileCheck %s < %t.cubin.json
// CHECK: "ptxas": {"path": "/usr/local/cuda/bin/ptxas"
target sm_80;

kernel k(X: f32[N]) grid(1) threads(32) {
  X[0] = 1.0;
}
