// E0341: bf16 / bf16x2 atomic add needs sm_90.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_80;
kernel k(B: bf16[N]) grid(1) threads(32) {
  let i = i32(tid.x);
  red.add B[2 * i +: 2], bf16x2(1.0, 2.0);   // expected-error E0341 {{'red.add' on bf16x2 is not available on sm_80: it requires sm_90 or newer}}
  let o = atom.add(B[i], bf16(1.0));         // expected-error E0341 {{'atom.add' on bf16 is not available on sm_80: it requires sm_90 or newer}}
}
