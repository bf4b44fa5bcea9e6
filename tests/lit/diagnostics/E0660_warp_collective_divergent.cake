// E0660: a row reduction (quad shuffles over the full lane mask), a column reduction and its arg form, a
// shuffle and a vote under lane-divergent
// control, and collectives on the right of a short-circuit operator whose left operand varies by lane.
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
  let x = X[0];
  if lane < 8 {
    let v = warp.any(x > 0.0);           // expected-error E0660 {{warp-collective 'warp.any' is not reached by every lane of the warp}}
  }
  if lane < 8 && warp.all(x > 0.0) {     // expected-error E0660 {{warp-collective 'warp.all' is not reached by every lane of the warp: it is on the right of '&&' / '||'}}
  }
  let y = select(lane == 0 || shfl.xor(x, 1) > 0.0, 1.0, 2.0);   // expected-error E0660 {{warp-collective 'shfl.xor' is not reached by every lane}}
  let any = warp.any(x > 0.0);
  if lane < 8 && any {                   // the vote ran on every lane: fine
  }
  if warp == 0 && warp.any(x > 0.0) {    // warp-uniform left operand: the whole warp takes the same side
  }
  store L[0] <- whole;
  if lane >= 4 {
    let c = colsum(acc);                 // expected-error E0660 {{warp-collective 'colsum' is not reached by every lane of the warp}}
    var v: frag<wgmma_col, f32, 64>;
    var r: frag<wgmma_col, i32, 64>;
    colargmax v, r <- acc;               // expected-error E0660 {{warp-collective 'colargmax' is not reached by every lane of the warp}}
  }
}
// expected-note@9 {{condition 'lane < 16'}}
// expected-note@12 {{divergent construct here}}
// expected-note@16 {{condition 'lane < 8'}}
// expected-note@19 {{left operand 'lane < 8'}}
// expected-note@21 {{left operand 'lane == 0'}}
// expected-note@28 {{condition 'lane >= 4'}}
// expected-note@28 {{condition 'lane >= 4'}}
