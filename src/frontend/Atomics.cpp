// The atomic table (Atomics.h).  Sources: PTX ISA "Parallel Synchronization and Communication Instructions:
// atom" and "red".  Integer add is .s32 / .u32 / .u64 (two's complement: i64 adds with .u64); min/max take the
// signedness of the type (.s32 .u32 .s64); exch, cas and the bitwise operations act on bits (.b32 .b64);
// float add is .f32, .noftz.f16 and .noftz.f16x2 (sm_60+, so every CAKE target), .noftz.bf16 and
// .noftz.bf16x2 (sm_90+).  PTX has no float min/max atomics on these types: CAKE programs encode floats with
// ordered(x) (docs/language.md "Atomics") and use the u32 operations.
#include "frontend/Atomics.h"

namespace cake {

std::string_view atomicOpName(AtomicOp op) {
  switch (op) {
  case AtomicOp::Add: return "add";
  case AtomicOp::Min: return "min";
  case AtomicOp::Max: return "max";
  case AtomicOp::Exch: return "exch";
  case AtomicOp::Cas: return "cas";
  case AtomicOp::And: return "and";
  case AtomicOp::Or: return "or";
  case AtomicOp::Xor: return "xor";
  }
  return "?";
}

std::optional<AtomicOp> atomicOpOf(IntrinsicId id) {
  switch (id) {
  case IntrinsicId::AtomAdd: return AtomicOp::Add;
  case IntrinsicId::AtomMin: return AtomicOp::Min;
  case IntrinsicId::AtomMax: return AtomicOp::Max;
  case IntrinsicId::AtomExch: return AtomicOp::Exch;
  case IntrinsicId::AtomCas: return AtomicOp::Cas;
  case IntrinsicId::AtomAnd: return AtomicOp::And;
  case IntrinsicId::AtomOr: return AtomicOp::Or;
  case IntrinsicId::AtomXor: return AtomicOp::Xor;
  default: return std::nullopt;
  }
}

std::optional<AtomicOp> atomicOpOf(OpId id) {
  switch (id) {
  case OpId::RedAdd: return AtomicOp::Add;
  case OpId::RedMin: return AtomicOp::Min;
  case OpId::RedMax: return AtomicOp::Max;
  case OpId::RedAnd: return AtomicOp::And;
  case OpId::RedOr: return AtomicOp::Or;
  case OpId::RedXor: return AtomicOp::Xor;
  default: return std::nullopt;
  }
}

std::optional<AtomicSupport> atomicSupport(AtomicOp op, AtomicValueType t) {
  const ScalarKind k = t.scalar;
  const ArchSet sm90 = archsFrom(Arch::SM90);
  if (t.width == 2) {
    if (op != AtomicOp::Add) return std::nullopt;
    if (k == ScalarKind::F16) return AtomicSupport{kAllArchs, "noftz.f16x2"};
    if (k == ScalarKind::BF16) return AtomicSupport{sm90, "noftz.bf16x2"};
    return std::nullopt;
  }
  if (t.width != 1) return std::nullopt;
  const bool is32 = k == ScalarKind::I32 || k == ScalarKind::U32;
  switch (op) {
  case AtomicOp::Add:
    if (k == ScalarKind::I32) return AtomicSupport{kAllArchs, "s32"};
    if (k == ScalarKind::U32) return AtomicSupport{kAllArchs, "u32"};
    if (k == ScalarKind::I64) return AtomicSupport{kAllArchs, "u64"};
    if (k == ScalarKind::F32) return AtomicSupport{kAllArchs, "f32"};
    if (k == ScalarKind::F16) return AtomicSupport{kAllArchs, "noftz.f16"};
    if (k == ScalarKind::BF16) return AtomicSupport{sm90, "noftz.bf16"};
    return std::nullopt;
  case AtomicOp::Min: case AtomicOp::Max:
    if (k == ScalarKind::I32) return AtomicSupport{kAllArchs, "s32"};
    if (k == ScalarKind::U32) return AtomicSupport{kAllArchs, "u32"};
    if (k == ScalarKind::I64) return AtomicSupport{kAllArchs, "s64"};
    return std::nullopt;
  case AtomicOp::Exch: case AtomicOp::Cas:
    if (is32 || k == ScalarKind::F32) return AtomicSupport{kAllArchs, "b32"};
    if (k == ScalarKind::I64) return AtomicSupport{kAllArchs, "b64"};
    return std::nullopt;
  case AtomicOp::And: case AtomicOp::Or: case AtomicOp::Xor:
    if (is32) return AtomicSupport{kAllArchs, "b32"};
    if (k == ScalarKind::I64) return AtomicSupport{kAllArchs, "b64"};
    return std::nullopt;
  }
  return std::nullopt;
}

std::string atomicTypesText(AtomicOp op) {
  switch (op) {
  case AtomicOp::Add: return "i32, u32, i64, f32, f16, f16x2, bf16 (sm_90+) and bf16x2 (sm_90+)";
  case AtomicOp::Min: case AtomicOp::Max: return "i32, u32 and i64 (floats: encode with ordered(x) and use a u32 tensor)";
  case AtomicOp::Exch: case AtomicOp::Cas: return "i32, u32, f32 and i64";
  case AtomicOp::And: case AtomicOp::Or: case AtomicOp::Xor: return "i32, u32 and i64";
  }
  return "";
}

} // namespace cake
