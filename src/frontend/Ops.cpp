// Operation table lookups.  The table is small (tens of entries), so lookups are linear scans.
#include "frontend/Ops.h"
#include "support/EditDistance.h"

#include <algorithm>
#include <string>

namespace cake {

namespace {
const std::vector<OpInfo> kOps = {
#define OP(Id, Spelling, Archs, Form, Summary) {OpId::Id, Spelling, Archs, Form, Summary},
#include "frontend/Ops.def"
#undef OP
};

} // namespace

const std::vector<OpInfo> &allOps() { return kOps; }
const OpInfo &opInfo(OpId id) { return kOps[static_cast<size_t>(id)]; }

const OpInfo *lookupOp(std::string_view spelling) {
  for (const OpInfo &op : kOps)
    if (op.spelling == spelling) return &op;
  return nullptr;
}

bool isOpNamespace(std::string_view first) {
  for (const OpInfo &op : kOps) {
    std::string_view head = op.spelling.substr(0, op.spelling.find('.'));
    if (head == first) return true;
  }
  return false;
}

bool isClauseName(std::string_view name) {
  return name == "signal" || name == "multicast" || name == "parity" || name == "expect_tx" || name == "cta" ||
         name == "valid" ||
         name == "accumulate";
}

const OpInfo *closestOp(std::string_view spelling) {
  const OpInfo *best = nullptr;
  size_t bestDist = 4;
  for (const OpInfo &op : kOps) {
    size_t d = editDistance(spelling, op.spelling);
    if (d < bestDist) { bestDist = d; best = &op; }
  }
  return best;
}

} // namespace cake
