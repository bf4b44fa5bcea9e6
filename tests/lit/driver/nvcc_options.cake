// nvcc's spellings of the options that mean the same: -arch / --gpu-architecture, -lineinfo /
// --generate-line-info (.file/.loc in the PTX, lines of an inlined fn body located in the body), -Xptxas
// (comma-separated, passed to ptxas as they are: an option ptxas does not know is its own error, E0705),
// -maxrregcount (16..255).
// RUN: %cakec %s -arch=sm_90 --emit=ptx -o - | %FileCheck %s --check-prefix=ARCH
// RUN: %cakec %s -arch sm_90a --emit=ptx -o - | %FileCheck %s --check-prefix=ARCHA
// RUN: %cakec %s --gpu-architecture=sm_86 --emit=ptx -o - | %FileCheck %s --check-prefix=GPUARCH
// ARCH: .target sm_90{{$}}
// ARCHA: .target sm_90a
// GPUARCH: .target sm_86
// RUN: %cakec %s -lineinfo --emit=ptx -o - | %FileCheck %s --check-prefix=LINES
// RUN: %cakec %s --generate-line-info --emit=ptx -o - | %FileCheck %s --check-prefix=LINES
// LINES: .address_size 64
// LINES-NEXT: .file 1 "{{.*}}nvcc_options.cake"
// LINES: .loc 1 36 11
// LINES-NEXT: ld.global
// LINES-NEXT: .loc 1 32 10
// LINES-NEXT: add.f32
// LINES-NEXT: .loc 1 37 3
// LINES-NEXT: st.global
// RUN: %cakec %s --emit=ptx -o - | %FileCheck %s --check-prefix=NOLINES
// NOLINES-NOT: .loc
// NOLINES-NOT: .file
// RUN: %cakec %s -lineinfo -maxrregcount 32 -Xptxas -O3,--warn-on-spills -o %t.cubin
// RUN: %expect-exit 1 %cakec %s -Xptxas -no-such-option -o %t2.cubin 2>&1 | %FileCheck %s --check-prefix=XPTXAS
// XPTXAS: ptxas rejected the generated PTX: Unknown option 'no-such-option' [E0705]
// RUN: %expect-exit 2 %cakec %s -maxrregcount 7 -o %t3.cubin 2>&1 | %FileCheck %s --check-prefix=MAXREG
// MAXREG: --maxrregcount: Value 7 not in range 16 to 255
target sm_80;

fn twice(x: f32) -> f32 {
  return x + x;
}

kernel k(X: f32[N], Y: f32[N]) grid(1) threads(32) {
  let x = X[0];
  Y[0] = twice(x);
}
