// WorkCounter, wave footprints: how many distinct tiles a global read site touches among the blocks that
// run at the same time, for the L2 reuse estimate (L2Reuse.h).
//
// Why: L2Reuse counts the distinct values of the block coordinates a site's address depends on.  That is
// right when the address is a function of the coordinates alone (A[by * BM + r, k]), but not when it goes
// through a loop whose bounds depend on the block - a persistent kernel's tile loop `for p in
// block.x / 2 .. pairs step clusters` with a grouped tile order: every block then looks distinct, while
// the 132 blocks of one wave share a handful of A and B panels.
//
// How: the first time block 0 executes a read site (walked in full) whose address reads the variable of a
// loop whose bounds read the block (WorkCounter.cpp: blockLoopBits_; other sites keep the dependence-bit
// rule, which is right for them and cheaper), its address is evaluated again for each of the first blocks
// b in launch order (up to kWaveProbeBlocks, more than a wave of one block per SM; L2Reuse takes the
// prefix that one wave of the actual occupancy holds): block coordinates read as b, a loop variable whose
// value depends on the block as b's value at the same iteration index (b's lower bound + index x step), a
// let that depends on either from its initialiser; everything else keeps block 0's value (inner loops at
// the iteration being walked: the same k for every block).  The site records lane 0's address per block;
// L2Reuse charges requested x D / W to DRAM, D the distinct addresses among a wave's W blocks.  A block
// whose tile loop has no iteration left still adds its would-be address (a small overestimate of D when
// blocks idle).  A site whose address reads memory or a var computed from the block is not probed.
#include "cost/WorkCounterImpl.h"

namespace cake::cost::detail {

namespace {
constexpr int64_t kWaveProbeBlocks = 264;   // two waves of one block per SM on an H100 / H200
} // namespace

void Counter::probeWaveFootprint(size_t site, const Expr &source) {
  SiteInfo &info = sites_[site];
  if (info.probed || controlOnly_ || exhaustive_ || block_ != std::array<int64_t, 3>{0, 0, 0}) return;
  info.probed = true;
  const std::array<int64_t, 3> &g = binding_.grid;
  int64_t probes = std::min<int64_t>(binding_.blocks(), kWaveProbeBlocks);
  if (probes < 2) return;
  const Accum saved = acc_;   // evaluating addresses issues instructions: not counted here
  const std::array<int64_t, 3> savedBlock = block_;
  std::vector<int64_t> addresses;
  bool failed = false;
  for (int64_t b = 0; b < probes && !failed; ++b) {
    block_ = {b % g[0], (b / g[0]) % g[1], b / (g[0] * g[1])};
    Rebinding r;
    rebinding_ = &r;
    ResolvedAccess ra = resolve(source);
    rebinding_ = nullptr;
    failed = r.failed || !ra.memory || !ra.byteOffset.known();
    if (!failed) addresses.push_back(ra.byteOffset.at(0));
  }
  block_ = savedBlock;
  acc_ = saved;
  if (!failed) info.waveAddresses = std::move(addresses);
}

// The value of a name while an address is evaluated for another block (rebinding_ set).
LaneValue Counter::rebindName(const Decl *decl, const LaneValue &current) {
  Rebinding &r = *rebinding_;
  if (!(current.deps & kDepBlockAny)) return current;   // the same in every block
  if (auto it = r.values.find(decl); it != r.values.end()) return it->second;
  LaneValue value = LaneValue::unknown(current.deps);
  if (decl->declKind == DeclKind::Let) {
    const auto *let = static_cast<const LetStmt *>(decl);
    if (let->init) value = eval(*let->init);
  } else if (decl->declKind == DeclKind::LoopVar) {
    // the same iteration index as block 0's: lower bound for this block + index x step
    const auto *loop = static_cast<const ForStmt *>(decl);
    const std::array<int64_t, 3> block = block_;
    block_ = {0, 0, 0};   // block 0's lower bound and step, from the walk's own values
    rebinding_ = nullptr;
    LaneValue lo0 = eval(*loop->lower);
    LaneValue step = loop->step ? eval(*loop->step) : LaneValue::uniform(1);
    rebinding_ = &r;
    block_ = block;
    LaneValue lo = eval(*loop->lower);
    if (lo0.isUniform() && lo.isUniform() && step.isUniform() && step.scalar > 0 && current.isUniform()) {
      int64_t index = (current.scalar - lo0.scalar) / step.scalar;
      value = LaneValue::uniform(lo.scalar + index * step.scalar, current.deps);
    } else {
      r.failed = true;
    }
  } else {
    r.failed = true;   // a var computed from the block: its value here depends on the walk so far
  }
  r.values[decl] = value;
  return value;
}

} // namespace cake::cost::detail
