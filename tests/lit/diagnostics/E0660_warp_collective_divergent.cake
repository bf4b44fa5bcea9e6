// E0660: a row reduction (quad shuffles over the full lane mask) and a shuffle under lane-divergent control.
// RUN: %cakec --verify-only --verify-diagnostics %s
target sm_90a;
kernel k(X: f32[N], L: f32[M]) grid(1) threads(128) {
  var acc: frag<wgmma_acc, f32, 64, 64, 16> = 0.0;
  let whole = rowmax(acc);
  if lane < 16 {
    let m = rowmax(acc);                 // expected-error E0660 {{warp-collective 'rowmax' is not reached by every lane of the warp}}
  }
  elect {
    let s = shfl.xor(1.0, 1);            // expected-error E0660 {{warp-collective 'shfl.xor' is not reached by every lane of the warp}}
  }
  store L[0] <- whole;
}
// expected-note@7 {{condition 'lane < 16'}}
// expected-note@10 {{divergent construct here}}
