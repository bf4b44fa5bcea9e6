// Operation table lookups.  The table is small (tens of entries), so lookups are linear scans.
#include "frontend/Ops.h"

#include <algorithm>
#include <string>

namespace cake {

namespace {
const std::vector<OpInfo> kOps = {
#define OP(Id, Spelling, Archs, Form, Summary) {OpId::Id, Spelling, Archs, Form, Summary},
#include "frontend/Ops.def"
#undef OP
};

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
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
  return name == "signal" || name == "multicast" || name == "parity" || name == "expect_tx" || name == "cta";
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
