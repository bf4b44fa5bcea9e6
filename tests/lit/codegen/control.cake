// Control flow: unrolled loops bind their variable to constants (register arrays then pick registers, and
// `if` on constants disappears), run-time loops test at the bottom, if/else branches, return, elect.
// RUN: %cakec --no-verify %s --emit=ptx -o - | %FileCheck %s
target sm_80;

kernel ctl(X: f32[N], Y: f32[N]) grid(1) threads(64) {
  let t = i32(tid.x);
  var acc: f32[4];
  // Fully unrolled: four loads, the constant part of each index in the immediate offset, no loop labels.
  // CHECK-LABEL: .entry ctl(
  // CHECK-NOT: $L_{{[0-9]+}}_loop
  // CHECK: ld.global.nc.f32 {{%f[0-9]+}}, [%rd{{[0-9]+}}];
  // CHECK: ld.global.nc.f32 {{%f[0-9]+}}, [%rd{{[0-9]+}}+4];
  // CHECK: ld.global.nc.f32 {{%f[0-9]+}}, [%rd{{[0-9]+}}+8];
  // CHECK: ld.global.nc.f32 {{%f[0-9]+}}, [%rd{{[0-9]+}}+12];
  for i in 0..4 unroll {
    acc[i] = X[t * 4 + i];
  }
  // `if i == 0` on a constant: only the taken side is lowered, no branch.
  // CHECK-NOT: bra
  // CHECK: mul.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, 0f40000000;
  for i in 0..2 unroll {
    if i == 0 {
      acc[i] = acc[i] * 2.0;
    } else {
      acc[i] = acc[i] + 1.0;
    }
  }
  // A run-time loop whose trip count is known positive has no guard: the test is at the bottom.
  // CHECK: [[LOOP:\$L_[0-9]+_loop]]:
  // CHECK: add.s32 [[I:%r[0-9]+]], [[I]], 2;
  // CHECK-NEXT: setp.lt.s32 [[P:%p[0-9]+]], [[I]], 10;
  // CHECK-NEXT: @[[P]] bra [[LOOP]];
  for k in 0..10 step 2 {
    acc[0] = acc[0] + X[k];
  }
  // if / else with a run-time condition.
  // CHECK: setp.lt.s32 [[C:%p[0-9]+]]
  // CHECK-NEXT: @![[C]] bra [[ELSE:\$L_[0-9]+_else]];
  // CHECK: bra [[END:\$L_[0-9]+_endif]];
  // CHECK-NEXT: [[ELSE]]:
  // CHECK: ret;
  // CHECK: [[END]]:
  if t < N {
    Y[t] = acc[0] + acc[1] + acc[2] + acc[3];
  } else {
    return;
  }
  // elect: the lowest active lane of the warp.
  // CHECK: activemask.b32 [[M:%r[0-9]+]];
  // CHECK-NEXT: neg.s32 [[NEG:%r[0-9]+]], [[M]];
  // CHECK-NEXT: and.b32 [[LOW:%r[0-9]+]], [[M]], [[NEG]];
  // CHECK-NEXT: bfind.u32 [[IDX:%r[0-9]+]], [[LOW]];
  // CHECK-NEXT: setp.ne.u32 [[NE:%p[0-9]+]], [[IDX]], {{%r[0-9]+}};
  // CHECK-NEXT: @[[NE]] bra [[EE:\$L_[0-9]+_end_elect]];
  // CHECK: st.global.f32
  // CHECK: [[EE]]:
  elect {
    Y[0] = 1.0;
  }
}
