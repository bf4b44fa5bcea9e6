// Element types shared by the manifest, the C API and TMA descriptors: names, sizes and classes.
#pragma once
#include "cake/runtime.h"

#include <cstddef>
#include <string_view>

namespace cake::rt {

std::string_view dtypeName(cake_dtype dtype);          // "bf16"; "invalid" for unknown values
cake_dtype dtypeFromName(std::string_view name);       // CAKE_DTYPE_INVALID if unknown
size_t dtypeSize(cake_dtype dtype);                    // bytes; 0 if invalid
bool dtypeIsInteger(cake_dtype dtype);                 // pred, i32, u32, i64
bool dtypeIsFloat(cake_dtype dtype);                   // f16, bf16, f32, f8*, f64
// The types a kernel parameter may have (everything but INVALID and F64).
bool dtypeIsKernelType(cake_dtype dtype);

} // namespace cake::rt
