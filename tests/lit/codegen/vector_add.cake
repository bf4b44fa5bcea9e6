// End to end on samples/vector_add.cake: PTX header and ABI, 16-byte vector accesses, bf16 <-> f32 with
// shl/and + cvt.rn.bf16x2.f32, the masked tail as a PTX loop; then cubin + manifest through ptxas.
// RUN: %cakec %samples/vector_add.cake --emit=ptx -o - | %FileCheck %s
// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_80
// CHECK-NEXT: .address_size 64
// CHECK:      .extern .shared .align 1024 .b8 cake_smem[];
// CHECK:      .visible .entry vector_add(
// CHECK-NEXT:   .param .u64 cake_param_A,
// CHECK-NEXT:   .param .u64 cake_param_B,
// CHECK-NEXT:   .param .u64 cake_param_C,
// CHECK-NEXT:   .param .s32 cake_shape_N
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 256, 1, 1
// CHECK:      ld.param.u32 [[N:%r[0-9]+]], [cake_shape_N];
// CHECK:      cvta.to.global.u64 [[A:%rd[0-9]+]],
// The guard is i <= N - 8 (i + 8 <= N would wrap in i32 for N near 2^31).
// CHECK:      sub.s32 [[NM8:%r[0-9]+]], [[N]], 8;
// CHECK-NEXT: setp.le.s32 [[P:%p[0-9]+]], {{%r[0-9]+}}, [[NM8]];
// CHECK-NEXT: @![[P]] bra [[ELSE:\$L_[0-9]+_else]];
// CHECK:      ld.global.nc.v4.b32 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, [%rd{{[0-9]+}}];
// CHECK:      ld.global.nc.v4.b32
// CHECK:      shl.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16;
// CHECK-NEXT: and.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, -65536;
// CHECK-COUNT-8: add.f32
// CHECK-COUNT-4: cvt.rn.bf16x2.f32
// CHECK-NEXT: st.global.v4.b32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// CHECK:      [[ELSE]]:
// CHECK:      setp.ge.s32 [[P2:%p[0-9]+]], [[J:%r[0-9]+]], [[N]];
// CHECK-NEXT: @[[P2]] bra [[END:\$L_[0-9]+_endloop]];
// CHECK-NEXT: [[LOOP:\$L_[0-9]+_loop]]:
// CHECK:      ld.global.nc.b16
// CHECK:      cvt.f32.bf16
// CHECK:      cvt.rn.bf16.f32
// CHECK:      st.global.b16
// CHECK:      add.s32 [[J]], [[J]], 1;
// CHECK-NEXT: setp.lt.s32 [[P3:%p[0-9]+]], [[J]], [[N]];
// CHECK-NEXT: @[[P3]] bra [[LOOP]];
// CHECK-NEXT: [[END]]:
// CHECK:      ret;
//
// Same input, same bytes.
// RUN: %cakec %samples/vector_add.cake --emit=ptx -o %t.1.ptx
// RUN: %cakec %samples/vector_add.cake --emit=ptx -o %t.2.ptx
// RUN: cmp %t.1.ptx %t.2.ptx
//
// Cubin and manifest (beside the cubin), and the -v resource report.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: %cakec %samples/vector_add.cake -o %t.dir/va.cubin -v 2>&1 | %FileCheck %s --check-prefix=VERBOSE
// VERBOSE: cakec: vector_add (sm_80): {{[0-9]+}} registers, 0 bytes static smem, 0 bytes stack, 0 bytes spill stores, 0 bytes spill loads
// RUN: test -s %t.dir/va.cubin
// RUN: %FileCheck %s --check-prefix=MANIFEST < %t.dir/va.cubin.json
// MANIFEST:      "format": "cake-manifest",
// MANIFEST-NEXT: "version": 1,
// MANIFEST:      "arch": "sm_80",
// MANIFEST-NEXT: "cubin": "va.cubin",
// MANIFEST:      "name": "vector_add",
// MANIFEST-NEXT: "entry": "vector_add",
// MANIFEST:      "ct_params": {"THREADS": 256},
// MANIFEST:      {"name": "A", "kind": "tensor", "dtype": "bf16", "dims": ["N"], "align": 16},
// MANIFEST:      "shape_vars": [{"name": "N", "from": {"param": 0, "dim": 0}}],
// MANIFEST-NEXT: "launch": {"grid": ["cdiv(N, THREADS * 8)", 1, 1], "block": [256, 1, 1], "dynamic_smem": 0},
// MANIFEST:      {"expr": "N >= 1", "text": "N >= 1", "loc": "{{.*}}vector_add.cake:{{[0-9]+}}:{{[0-9]+}}"}
// MANIFEST:      "abi": [{"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1}, {"kind": "ptr", "param": 2}, {"kind": "shape", "var": "N"}]
