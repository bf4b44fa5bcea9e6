// E0718: --embed-ptx needs NVIDIA's fatbinary beside the ptxas that ran; missing or failing, the compile
// stops with exit 3 and writes nothing.
// RUN: rm -rf %t.dir && mkdir -p %t.dir/lonely %t.dir/broken
// RUN: cp "$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" %t.dir/lonely/ptxas
// RUN: %expect-exit 3 %cakec %s -o %t.dir/g.cubin --embed-ptx --ptxas %t.dir/lonely/ptxas 2>&1 | %FileCheck %s --check-prefix=MISSING
// MISSING: error: cannot pack the fat binary for --embed-ptx: no executable fatbinary beside ptxas ('{{.*}}/lonely/fatbinary') [E0718]
// RUN: test ! -e %t.dir/g.cubin && test ! -e %t.dir/g.cubin.json
// A fatbinary that fails: its status and output are quoted.
// RUN: cp %t.dir/lonely/ptxas %t.dir/broken/ptxas
// RUN: printf '#!/bin/sh\necho "fatbinary: no space left"\nexit 2\n' > %t.dir/broken/fatbinary && chmod +x %t.dir/broken/fatbinary
// RUN: %expect-exit 3 %cakec %s -o %t.dir/g.cubin --embed-ptx --ptxas %t.dir/broken/ptxas 2>&1 | %FileCheck %s --check-prefix=FAILS
// FAILS: error: cannot pack the fat binary for --embed-ptx: it exited with status 2: fatbinary: no space left{{.*}} [E0718]
// RUN: test ! -e %t.dir/g.cubin && test ! -e %t.dir/g.cubin.json
target sm_80;

kernel k(X: f32[N]) grid(cdiv(N, 256)) threads(256) {
  let i = i32(block.x) * 256 + i32(tid.x);
  if i < N {
    X[i] = 1.0;
  }
}
