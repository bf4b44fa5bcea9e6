// Memory atomics and reductions as data: which operation (add, min, max, exch, cas, and, or, xor) a call
// `atom.OP(T[i], v)` or a statement `red.OP T[i], v;` performs, which value types each operation takes,
// from which target on, and the PTX type suffix codegen writes (PTX ISA "atom" and "red").
// Sema checks operands with atomicSupport(); codegen spells the instruction with the same entry, so the
// accepted types and the emitted instructions cannot drift apart.
#pragma once
#include "frontend/Intrinsics.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <optional>
#include <string>
#include <string_view>

namespace cake {

enum class AtomicOp : uint8_t { Add, Min, Max, Exch, Cas, And, Or, Xor };

std::string_view atomicOpName(AtomicOp op);   // "add", "min", ...
std::optional<AtomicOp> atomicOpOf(IntrinsicId id);   // atom.add -> Add; nullopt for other intrinsics
std::optional<AtomicOp> atomicOpOf(OpId id);          // red.add -> Add; nullopt for other operations

// The value an atomic updates: one scalar (width 1) or a packed pair of 16-bit floats (f16x2, bf16x2).
struct AtomicValueType {
  ScalarKind scalar = ScalarKind::I32;
  unsigned width = 1;
};

struct AtomicSupport {
  ArchSet archs = 0;          // the targets that have it
  std::string_view ptxType;   // the PTX suffix after the operation: "f32", "noftz.bf16x2", "s32", "b64", ...
};

// nullopt: PTX has no such atomic for this type on any target.
std::optional<AtomicSupport> atomicSupport(AtomicOp op, AtomicValueType t);
// "i32, u32, i64, f32, f16x2 and bf16x2 (sm_90+)": the types `op` takes, for hints.
std::string atomicTypesText(AtomicOp op);

} // namespace cake
