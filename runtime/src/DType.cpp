// Element type table: one row per cake_dtype.
#include "DType.h"

namespace cake::rt {
namespace {

struct DTypeInfo {
  cake_dtype dtype;
  std::string_view name;
  size_t size;
  bool isFloat;
};

constexpr DTypeInfo kDTypes[] = {
    {CAKE_DTYPE_PRED, "pred", 1, false},   {CAKE_DTYPE_I32, "i32", 4, false},
    {CAKE_DTYPE_U32, "u32", 4, false},     {CAKE_DTYPE_I64, "i64", 8, false},
    {CAKE_DTYPE_F16, "f16", 2, true},      {CAKE_DTYPE_BF16, "bf16", 2, true},
    {CAKE_DTYPE_F32, "f32", 4, true},      {CAKE_DTYPE_F8E4M3, "f8e4m3", 1, true},
    {CAKE_DTYPE_F8E5M2, "f8e5m2", 1, true}, {CAKE_DTYPE_F64, "f64", 8, true},
};

const DTypeInfo *lookup(cake_dtype dtype) {
  for (const auto &info : kDTypes)
    if (info.dtype == dtype)
      return &info;
  return nullptr;
}

} // namespace

std::string_view dtypeName(cake_dtype dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info ? info->name : "invalid";
}

cake_dtype dtypeFromName(std::string_view name) {
  for (const auto &info : kDTypes)
    if (info.name == name)
      return info.dtype;
  return CAKE_DTYPE_INVALID;
}

size_t dtypeSize(cake_dtype dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info ? info->size : 0;
}

bool dtypeIsInteger(cake_dtype dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info && !info->isFloat;
}

bool dtypeIsFloat(cake_dtype dtype) {
  const DTypeInfo *info = lookup(dtype);
  return info && info->isFloat;
}

bool dtypeIsKernelType(cake_dtype dtype) { return lookup(dtype) != nullptr && dtype != CAKE_DTYPE_F64; }

} // namespace cake::rt
