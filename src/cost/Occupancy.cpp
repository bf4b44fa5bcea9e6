// Occupancy and the register estimate (see Occupancy.h).
#include "cost/Occupancy.h"

#include "frontend/NameUses.h"
#include "frontend/Types.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace cake::cost {

namespace {

int64_t registersOf(const Type *t) {
  if (!t) return 0;
  if (t->isFragment()) return t->fragRegistersPerThread();
  if (t->isScalar()) return t->scalar == ScalarKind::I64 ? 2 : 1;
  if (t->isVector()) return std::max<int64_t>(1, (static_cast<int64_t>(scalarBits(t->scalar)) * t->width + 31) / 32);
  if (t->isTensor() && t->space == AddressSpace::Register) {
    int64_t n = t->numElements().value_or(1);
    return n * std::max<int64_t>(1, registersOf(t->element));
  }
  return 0;
}

// The most registers the `var`s hold at once inside s.  A `var` of a block is live from its declaration to the
// last statement of that block that names it (a block-level interval: a use inside a nested statement keeps
// it live through that whole statement); the peak of a block is the largest, over its statements, of what is
// live there plus what the statement itself holds inside.  Branches and loop bodies count their own peak.
int64_t peakRegisters(const Stmt *s, unsigned depth) {
  if (!s || depth > 300) return 0;
  switch (s->kind) {
  case StmtKind::Block: {
    const auto &stmts = cast<BlockStmt>(s)->stmts;
    std::unordered_map<const Decl *, size_t> varIndex;   // a var of this block -> its entry in vars
    struct Live { int64_t regs; size_t first, last; };
    std::vector<Live> vars;
    for (size_t i = 0; i < stmts.size(); ++i) {
      forEachNameUseIn(stmts[i].get(), [&](const NameExpr &n) {
        if (auto it = varIndex.find(n.decl); it != varIndex.end()) vars[it->second].last = i;
      });
      if (auto *v = dynCast<VarStmt>(stmts[i].get())) {
        varIndex[v] = vars.size();
        vars.push_back({registersOf(v->type), i, i});
      }
    }
    std::vector<int64_t> delta(stmts.size() + 1, 0);       // live registers change by delta[i] at statement i
    for (const Live &v : vars) {
      delta[v.first] += v.regs;
      delta[v.last + 1] -= v.regs;
    }
    int64_t peak = 0, live = 0;
    for (size_t i = 0; i < stmts.size(); ++i) {
      live += delta[i];
      peak = std::max(peak, live + peakRegisters(stmts[i].get(), depth + 1));
    }
    return peak;
  }
  case StmtKind::Role: return peakRegisters(cast<RoleStmt>(s)->body.get(), depth + 1);
  case StmtKind::For: return peakRegisters(cast<ForStmt>(s)->body.get(), depth + 1);
  case StmtKind::Elect: return peakRegisters(cast<ElectStmt>(s)->body.get(), depth + 1);
  case StmtKind::If: {
    auto *i = cast<IfStmt>(s);
    return std::max(peakRegisters(i->thenBody.get(), depth + 1), peakRegisters(i->elseBody.get(), depth + 1));
  }
  default: return 0;
  }
}

int64_t roundUp(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

} // namespace

int64_t estimateRegisters(const Kernel &kernel) {
  return peakRegisters(kernel.body.get(), 0) + kRegisterOverhead;
}

Occupancy computeOccupancy(const Kernel &kernel, const KernelInfo &info, const Machine &machine,
                           std::optional<int64_t> ptxasRegisters, std::optional<int64_t> registerCap) {
  Occupancy o;
  int64_t threads = std::max<int64_t>(32, info.threads);
  int64_t warps = threads / 32;
  o.registersEstimated = !ptxasRegisters;
  o.registersPerThread = std::min(machine.maxRegistersPerThread, ptxasRegisters.value_or(estimateRegisters(kernel)));
  if (!ptxasRegisters && registerCap && *registerCap < o.registersPerThread) {
    o.registersPerThread = *registerCap;
    o.registersCapped = true;
  }
  // setmaxnreg budgets: when every warp is in a role with regs(), the block allocates exactly those
  int64_t roleWarps = 0, roleRegs = 0;
  bool allBudgets = !info.roles.empty();
  for (const RoleInfo &r : info.roles) {
    int64_t w = r.endWarp - r.firstWarp;
    roleWarps += w;
    if (r.regs) roleRegs += w * 32 * *r.regs;
    else allBudgets = false;
  }
  if (allBudgets && roleWarps == warps) {
    o.registersFromRoles = true;
    o.blockRegisters = roleRegs;
    o.registersPerThread = roleRegs / threads;
  } else {
    o.blockRegisters = warps * roundUp(roundUp(o.registersPerThread, 8) * 32, 256);
  }
  int64_t smemPerBlock = info.sharedBytes + machine.sharedReservedPerBlock;
  struct Limit { int64_t blocks; const char *name; };
  Limit limits[] = {
      {machine.maxBlocksPerSm, "blocks per SM"},
      {machine.maxThreadsPerSm / threads, "threads"},
      {o.blockRegisters > 0 ? machine.registersPerSm / o.blockRegisters : machine.maxBlocksPerSm, "registers"},
      {smemPerBlock > 0 ? machine.sharedPerSm / smemPerBlock : machine.maxBlocksPerSm, "shared memory"},
  };
  o.blocksPerSm = INT64_MAX;
  for (const Limit &l : limits)
    if (l.blocks < o.blocksPerSm) {
      o.blocksPerSm = l.blocks;
      o.limiter = l.name;
    }
  if (info.sharedBytes > machine.sharedPerBlockMax) {
    o.blocksPerSm = 0;
    o.limiter = "shared memory";
  }
  if (o.blocksPerSm <= 0) {
    o.blocksPerSm = 0;
    if (o.limiter == "shared memory")
      o.whyNot = "the block needs " + std::to_string(info.sharedBytes) + " bytes of shared memory, the SM offers " +
                 std::to_string(std::min(machine.sharedPerBlockMax, machine.sharedPerSm - machine.sharedReservedPerBlock));
    else if (o.limiter == "registers")
      o.whyNot = "the block needs " + std::to_string(o.blockRegisters) + " registers, the SM has " +
                 std::to_string(machine.registersPerSm);
    else
      o.whyNot = "the block has " + std::to_string(threads) + " threads, the SM takes " +
                 std::to_string(machine.maxThreadsPerSm);
  }
  o.residentWarps = o.blocksPerSm * warps;
  return o;
}

} // namespace cake::cost
