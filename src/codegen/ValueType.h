// ValueType: code generation's view of the type of a value that lives in registers.
//
// Codegen types values bottom-up while it lowers them (operands determine results; untyped literals adapt
// to the other operand, exactly as docs/frontend-contract.md says), so it needs only the resolved names of
// sema, not its type objects.  A ValueType is a scalar, a vector (scalar x lanes) or an mma fragment; the
// helpers here say how each is stored in PTX registers:
//   pred -> one .pred; 16-bit scalars -> one .b16; 32-bit ints -> .b32; f32 -> .f32; i64 -> .b64;
//   vectors of 8/16-bit elements -> packed into .b32 registers (bf16x8 = 4 x .b32), 32/64-bit elements ->
//   one register per element; fragments -> the registers mma.sync expects (packed .b32 for bf16/f16 inputs,
//   one .b32 per element for tf32 inputs, .f32 for f32 accumulators).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cake::codegen {

enum class Scalar : uint8_t {
  Pred, I32, U32, I64, F16, BF16, F32, F8E4M3, F8E5M2,
  TF32,       // element of mma.sync A/B fragments only: an f32 rounded by cvt.rna.tf32.f32, in a .b32 register
  IntLit,     // untyped integer literal (adapts; defaults to i32)
  FloatLit,   // untyped float literal (adapts; defaults to f32)
};

// The same kinds, in the same order, as the front end's FragKind (after None); row vectors keep M, column
// vectors N (and their family's M).
enum class FragKind : uint8_t { None, MmaA, MmaB, MmaC, WgmmaA, WgmmaAcc, MmaRow, WgmmaRow, MmaCol, WgmmaCol, TmemAcc };

struct FragShape {
  FragKind kind = FragKind::None;
  Scalar dtype = Scalar::F32;
  int m = 0, n = 0, k = 0;
  bool operator==(const FragShape &) const = default;
};

enum class RegClass : uint8_t { Pred, B16, B32, B64, F32 };

struct ValueType {
  Scalar elem = Scalar::I32;
  unsigned lanes = 1;   // vector length (1 = scalar)
  FragShape frag;       // kind != None: an mma fragment

  static ValueType scalar(Scalar s) { return ValueType{s, 1, {}}; }
  static ValueType vector(Scalar s, unsigned n) { return ValueType{s, n, {}}; }
  static ValueType fragment(FragShape f) { return ValueType{f.dtype, 1, f}; }
  bool isFrag() const { return frag.kind != FragKind::None; }
  bool isVector() const { return !isFrag() && lanes > 1; }
  bool isScalar() const { return !isFrag() && lanes == 1; }
  bool operator==(const ValueType &) const = default;
};

// Scalar properties.
bool isFloat(Scalar s);          // f16 bf16 f32 f8* FloatLit
bool isInteger(Scalar s);        // i32 u32 i64 IntLit
bool isSigned(Scalar s);         // i32 i64 IntLit
bool isUntyped(Scalar s);        // IntLit FloatLit
unsigned scalarBits(Scalar s);   // pred -> 1; literals -> 32 (their default)
std::string_view scalarName(Scalar s);
std::optional<Scalar> parseScalarName(std::string_view name);   // "bf16" -> BF16
// "bf16x8" -> {BF16, 8}; "f32" -> {F32, 1}; nullopt for anything else.
std::optional<ValueType> parseValueTypeName(std::string_view name);
std::string typeName(const ValueType &t);   // "f32", "bf16x8", "frag<mma_c, f32, 16, 8, 16>"
// Default type of an untyped literal.
Scalar concreteScalar(Scalar s);

// PTX spellings.
std::string_view ptxArithType(Scalar s);   // s32 u32 s64 f32 f16 bf16 pred (for arithmetic/compare)
std::string_view ptxBitType(Scalar s);     // b32 b16 b64 pred b8
RegClass scalarRegClass(Scalar s);         // register class of one unpacked scalar

// Register storage of a whole value.
struct Storage {
  RegClass cls = RegClass::B32;
  unsigned regs = 1;          // number of registers
  unsigned elemsPerReg = 1;   // > 1: packed (16-bit pairs, 8-bit quads)
};
// nullopt when the type has no register form codegen supports (e.g. f8x2).
std::optional<Storage> storageOf(const ValueType &t);
// Number of elements a fragment holds per lane and how they are stored.
unsigned fragElementsPerLane(const FragShape &f);
// Elements of a vector or fragment (1 for a scalar).
unsigned elementCount(const ValueType &t);

} // namespace cake::codegen
