// .npy files (NumPy's array format, versions 1-3) for `cakec run`: reading an array into a HostTensor of
// the kernel parameter's element type, and writing one.
//
// Reading accepts little-endian (or byte-order-free) bool, int8..int64, uint8..uint64, float16, float32
// and float64 arrays in C order and converts the values to the parameter's type as a conversion call
// would (round to nearest even for f16/bf16/f32; integers wrap).  NumPy has no bfloat16, so a bf16
// parameter takes any float array (rounded) and is written as float32 (exact: every bf16 is an f32).
#pragma once
#include "interp/Interpreter.h"

#include <optional>
#include <string>

namespace cake::interp {

// The array in `bytes` as a tensor of element type `to`; nullopt and `why` when it is not a readable .npy.
std::optional<HostTensor> readNpy(const std::string &bytes, ScalarKind to, std::string &why);
// The .npy image of `t` (bf16 as float32, pred as bool).
std::string writeNpy(const HostTensor &t);

} // namespace cake::interp
