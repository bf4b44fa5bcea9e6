// Shared fixtures of the runtime tests: sample manifests and builders for cake_arg.
#pragma once
#include "cake/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cake::rt::testing {

// A Hopper GEMM: two TMA operands, a plain output, an f32 scalar, a cluster, > 48 KiB of shared memory.
inline const char *kGemmManifest = R"json({
  "format": "cake-manifest", "version": 1, "generator": "test", "arch": "sm_90a",
  "cubin": "gemm.cubin", "source": "gemm.cake",
  "kernels": [{
    "name": "gemm", "entry": "gemm__9", "loc": "gemm.cake:2:8",
    "ct_params": {"BM": 128, "BN": 256, "BK": 64},
    "params": [
      {"name": "A", "kind": "tensor", "dtype": "bf16", "dims": ["M", "K"], "align": 16,
       "tma": {"box": ["BM", "BK"], "swizzle": "128B", "l2_promotion": "128B", "oob_fill": "zero"}},
      {"name": "B", "kind": "tensor", "dtype": "bf16", "dims": ["N", "K"], "strides": "contiguous",
       "tma": {"box": ["BN", "BK"], "swizzle": "128B", "interleave": "none"}},
      {"name": "C", "kind": "tensor", "dtype": "f32", "dims": ["M", "N"]},
      {"name": "alpha", "kind": "scalar", "dtype": "f32"}
    ],
    "shape_vars": [
      {"name": "M", "from": {"param": 0, "dim": 0}},
      {"name": "K", "from": {"param": 0, "dim": 1}},
      {"name": "N", "from": {"param": 1, "dim": 0}}
    ],
    "launch": {"grid": ["cdiv(M, BM)", "cdiv(N, BN)"], "block": [384], "cluster": [2, 1, 1],
               "dynamic_smem": "(BM + BN) * BK * 2 * 4"},
    "requires": [{"expr": "K % BK == 0", "text": "K % BK == 0", "loc": "gemm.cake:3:12"}],
    "abi": [
      {"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1}, {"kind": "ptr", "param": 2},
      {"kind": "shape", "var": "M"}, {"kind": "shape", "var": "K"}, {"kind": "shape", "var": "N"},
      {"kind": "scalar", "param": 3},
      {"kind": "tensormap", "param": 0}, {"kind": "tensormap", "param": 1}
    ]
  }]
})json";

// A persistent elementwise kernel: grid from num_sms, an integer scalar used in `requires`, a strided input.
inline const char *kScaleManifest = R"json({
  "format": "cake-manifest", "version": 1, "arch": "sm_80", "cubin": "scale.cubin",
  "kernels": [{
    "name": "scale", "entry": "scale__6",
    "params": [
      {"name": "x", "kind": "tensor", "dtype": "f16", "dims": ["R", "n"], "strides": ["ld", 1]},
      {"name": "y", "kind": "tensor", "dtype": "f16", "dims": ["R", "n"]},
      {"name": "factor", "kind": "scalar", "dtype": "i32"}
    ],
    "shape_vars": [
      {"name": "R", "from": {"param": 0, "dim": 0}},
      {"name": "n", "from": {"param": 0, "dim": 1}},
      {"name": "ld", "from": {"param": 0, "stride": 0}}
    ],
    "launch": {"grid": ["min(cdiv(R * n, 256), num_sms * 4)"], "block": [256]},
    "requires": [{"expr": "factor > 0 && ld >= n", "loc": "scale.cake:1:40"}],
    "abi": [
      {"kind": "ptr", "param": 0}, {"kind": "ptr", "param": 1},
      {"kind": "shape", "var": "R"}, {"kind": "shape", "var": "n"}, {"kind": "shape", "var": "ld"},
      {"kind": "scalar", "param": 2}
    ]
  }]
})json";

inline cake_arg tensorArg(cake_dtype dtype, uint64_t data, const std::vector<int64_t> &shape,
                          const std::vector<int64_t> *strides = nullptr) {
  cake_arg arg{};
  arg.kind = CAKE_ARG_TENSOR;
  arg.dtype = dtype;
  arg.data = data;
  arg.rank = static_cast<int32_t>(shape.size());
  arg.shape = shape.empty() ? nullptr : shape.data();
  arg.strides = strides ? strides->data() : nullptr;
  return arg;
}

inline cake_arg intArg(int64_t value) {
  cake_arg arg{};
  arg.kind = CAKE_ARG_SCALAR;
  arg.dtype = CAKE_DTYPE_I64;
  arg.i = value;
  return arg;
}

inline cake_arg floatArg(double value) {
  cake_arg arg{};
  arg.kind = CAKE_ARG_SCALAR;
  arg.dtype = CAKE_DTYPE_F64;
  arg.f = value;
  return arg;
}

// Loads a manifest from memory with a dummy cubin; fails the test on error.
inline cake_module *loadOrNull(const char *json, std::string *error = nullptr) {
  static const unsigned char kCubin[] = {0x7f, 'E', 'L', 'F'};
  cake_module *module = nullptr;
  char err[1024];
  cake_status status = cake_module_load_data(json, std::string(json).size(), kCubin, sizeof kCubin, &module, err,
                                             sizeof err);
  if (error)
    *error = err;
  return status == CAKE_OK ? module : nullptr;
}

} // namespace cake::rt::testing
