// The operation table (Ops.def) as data: lookup by spelling, and which first components of a dotted name
// are operation namespaces (so the parser can say "unknown operation 'tma.laod'" instead of a syntax error).
#pragma once
#include "support/Arch.h"

#include <string_view>
#include <vector>

namespace cake {

constexpr ArchSet kSM80Up = archsFrom(Arch::SM80);
constexpr ArchSet kSM90Up = archsFrom(Arch::SM90);
constexpr ArchSet kSM90aOnly = archBit(Arch::SM90a);
constexpr ArchSet kSM100aOnly = archBit(Arch::SM100a);

enum class OpId : uint8_t {
#define OP(Id, Spelling, Archs, Form, Summary) Id,
#include "frontend/Ops.def"
#undef OP
  Count_
};

struct OpInfo {
  OpId id;
  std::string_view spelling;
  ArchSet archs;
  std::string_view form;
  std::string_view summary;
};

const OpInfo *lookupOp(std::string_view spelling);
const OpInfo &opInfo(OpId id);
const std::vector<OpInfo> &allOps();
// True for the first component of any multi-part op name: tma, cp, wgmma, mma, mbarrier, fence, cluster,
// plus single-word ops (ldmatrix, stmatrix, arrive, wait, sync, syncthreads, store).
bool isOpNamespace(std::string_view firstComponent);
// Clause names the parser accepts after an operation: signal multicast parity expect_tx cta valid accumulate.
bool isClauseName(std::string_view name);
// The op whose spelling is closest to `spelling` (edit distance <= 3), for "did you mean" hints.
const OpInfo *closestOp(std::string_view spelling);

} // namespace cake
