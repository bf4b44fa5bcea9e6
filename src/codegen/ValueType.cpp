// ValueType helpers: scalar properties, names, PTX spellings and register storage (see ValueType.h).
#include "codegen/ValueType.h"

#include <array>

namespace cake::codegen {

namespace {
struct ScalarRow {
  Scalar s;
  std::string_view name;
  unsigned bits;
};
constexpr std::array<ScalarRow, 12> kScalars = {{
    {Scalar::Pred, "pred", 1},     {Scalar::I32, "i32", 32},        {Scalar::U32, "u32", 32},
    {Scalar::I64, "i64", 64},      {Scalar::F16, "f16", 16},        {Scalar::BF16, "bf16", 16},
    {Scalar::F32, "f32", 32},      {Scalar::F8E4M3, "f8e4m3", 8},   {Scalar::F8E5M2, "f8e5m2", 8},
    {Scalar::TF32, "tf32", 32},
    {Scalar::IntLit, "int literal", 32}, {Scalar::FloatLit, "float literal", 32},
}};
} // namespace

bool isFloat(Scalar s) {
  return s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F32 || s == Scalar::F8E4M3 ||
         s == Scalar::F8E5M2 || s == Scalar::FloatLit;
}
bool isInteger(Scalar s) { return s == Scalar::I32 || s == Scalar::U32 || s == Scalar::I64 || s == Scalar::IntLit; }
bool isSigned(Scalar s) { return s == Scalar::I32 || s == Scalar::I64 || s == Scalar::IntLit; }
bool isUntyped(Scalar s) { return s == Scalar::IntLit || s == Scalar::FloatLit; }
unsigned scalarBits(Scalar s) { return kScalars[static_cast<unsigned>(s)].bits; }
std::string_view scalarName(Scalar s) { return kScalars[static_cast<unsigned>(s)].name; }

std::optional<Scalar> parseScalarName(std::string_view name) {
  for (const auto &row : kScalars)
    if (row.name == name && !isUntyped(row.s)) return row.s;
  return std::nullopt;
}

std::optional<ValueType> parseValueTypeName(std::string_view name) {
  if (auto s = parseScalarName(name)) return ValueType::scalar(*s);
  size_t x = name.rfind('x');
  if (x == std::string_view::npos || x == 0) return std::nullopt;
  auto s = parseScalarName(name.substr(0, x));
  std::string_view n = name.substr(x + 1);
  if (!s || *s == Scalar::Pred) return std::nullopt;
  for (unsigned lanes : {2u, 4u, 8u, 16u})
    if (n == std::to_string(lanes)) return ValueType::vector(*s, lanes);
  return std::nullopt;
}

std::string typeName(const ValueType &t) {
  if (t.isFrag()) {
    static constexpr std::string_view kinds[] = {"none",      "mma_a",   "mma_b",     "mma_c",   "wgmma_a",
                                                 "wgmma_acc", "mma_row", "wgmma_row", "mma_col", "wgmma_col", "tmem_acc"};
    if (t.frag.kind == FragKind::MmaRow || t.frag.kind == FragKind::WgmmaRow)
      return "frag<" + std::string(kinds[static_cast<unsigned>(t.frag.kind)]) + ", " + std::string(scalarName(t.frag.dtype)) +
             ", " + std::to_string(t.frag.m) + ">";
    if (t.frag.kind == FragKind::MmaCol || t.frag.kind == FragKind::WgmmaCol)
      return "frag<" + std::string(kinds[static_cast<unsigned>(t.frag.kind)]) + ", " + std::string(scalarName(t.frag.dtype)) +
             ", " + std::to_string(t.frag.n) + ">";
    return "frag<" + std::string(kinds[static_cast<unsigned>(t.frag.kind)]) + ", " +
           std::string(scalarName(t.frag.dtype)) + ", " + std::to_string(t.frag.m) + ", " +
           std::to_string(t.frag.n) + ", " + std::to_string(t.frag.k) + ">";
  }
  std::string out(scalarName(t.elem));
  if (t.lanes > 1) out += "x" + std::to_string(t.lanes);
  return out;
}

Scalar concreteScalar(Scalar s) {
  if (s == Scalar::IntLit) return Scalar::I32;
  if (s == Scalar::FloatLit) return Scalar::F32;
  return s;
}

std::string_view ptxArithType(Scalar s) {
  switch (concreteScalar(s)) {
  case Scalar::Pred: return "pred";
  case Scalar::I32: return "s32";
  case Scalar::U32: return "u32";
  case Scalar::I64: return "s64";
  case Scalar::F16: return "f16";
  case Scalar::BF16: return "bf16";
  case Scalar::F32: return "f32";
  case Scalar::F8E4M3: return "e4m3";
  case Scalar::F8E5M2: return "e5m2";
  case Scalar::TF32: return "tf32";
  default: return "b32";
  }
}

std::string_view ptxBitType(Scalar s) {
  switch (scalarBits(concreteScalar(s))) {
  case 1: return "pred";
  case 8: return "b8";
  case 16: return "b16";
  case 64: return "b64";
  default: return "b32";
  }
}

RegClass scalarRegClass(Scalar s) {
  s = concreteScalar(s);
  if (s == Scalar::Pred) return RegClass::Pred;
  if (s == Scalar::F32) return RegClass::F32;
  switch (scalarBits(s)) {
  case 8:
  case 16: return RegClass::B16;
  case 64: return RegClass::B64;
  default: return RegClass::B32;
  }
}

unsigned fragElementsPerLane(const FragShape &f) {
  switch (f.kind) {
  case FragKind::MmaA: return static_cast<unsigned>(f.m * f.k / 32);
  case FragKind::MmaB: return static_cast<unsigned>(f.k * f.n / 32);
  case FragKind::MmaC: return static_cast<unsigned>(f.m * f.n / 32);
  case FragKind::WgmmaA: return static_cast<unsigned>(f.m * f.k / 128);
  case FragKind::WgmmaAcc: return static_cast<unsigned>(f.m * f.n / 128);
  case FragKind::MmaRow: case FragKind::WgmmaRow: return 2;
  case FragKind::MmaCol: case FragKind::WgmmaCol: return static_cast<unsigned>(f.n / 4);
  case FragKind::TmemAcc: return static_cast<unsigned>(f.m * f.n / 128);   // one row per thread: n columns
  case FragKind::None: return 0;
  }
  return 0;
}

std::optional<Storage> storageOf(const ValueType &t) {
  Scalar e = concreteScalar(t.elem);
  unsigned bits = scalarBits(e);
  unsigned count = t.isFrag() ? fragElementsPerLane(t.frag) : t.lanes;
  if (count == 0) return std::nullopt;
  if (count == 1 && !t.isFrag()) return Storage{scalarRegClass(e), 1, 1};
  if (bits >= 32) return Storage{scalarRegClass(e), count, 1};
  if (bits == 1) {   // pred vectors do not exist; pred fragments (masks) hold one predicate per element
    if (t.isFrag()) return Storage{RegClass::Pred, count, 1};
    return std::nullopt;
  }
  unsigned perReg = 32 / bits;
  if (count % perReg != 0) return std::nullopt;   // e.g. f8x2: not a whole register
  return Storage{RegClass::B32, count / perReg, perReg};
}

} // namespace cake::codegen
