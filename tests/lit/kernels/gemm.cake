// kernels/gemm/gemm_nt_simt.cake (the GEMM library's fallback for any M, N, K) on the CPU interpreter at an
// odd shape on several blocks, checked exactly against A . B^T rounded to bf16; then the library spec it ends
// (kernels/gemm/library_bf16_sm90.json) builds with its table proven.
// RUN: %python %S/Inputs/gemm_nt.py inputs %t.a.npy %t.b.npy 19 45 37
// RUN: %cakec run %kernels/gemm/gemm_nt_simt.cake --inputs %t.a.npy,%t.b.npy --outputs %t.c.npy
// RUN: %python %S/Inputs/gemm_nt.py check %t.a.npy %t.b.npy %t.c.npy | %FileCheck %s
// CHECK: ok 19 45
// RUN: %cakec %kernels/gemm/gemm_nt_simt.cake --verify-only
// RUN: rm -rf %t.lib && %cakec library build %kernels/gemm/library_bf16_sm90.json -o %t.lib 2>&1 | %FileCheck %s --check-prefix=LIB
// LIB: cakec library: gemm_bf16_sm90: 115 variants, 68 dispatch entries, table checked
target sm_80;
