// Occupancy and the register estimate (see Occupancy.h).
#include "cost/Occupancy.h"

#include "frontend/Types.h"

#include <algorithm>

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

void collect(const Stmt &s, int64_t &regs, unsigned depth) {
  if (depth > 300) return;
  switch (s.kind) {
  case StmtKind::Block:
    for (const auto &c : cast<BlockStmt>(&s)->stmts) collect(*c, regs, depth + 1);
    break;
  case StmtKind::Var: regs += registersOf(static_cast<const Decl *>(cast<VarStmt>(&s))->type); break;
  case StmtKind::Role: collect(*cast<RoleStmt>(&s)->body, regs, depth + 1); break;
  case StmtKind::For: collect(*cast<ForStmt>(&s)->body, regs, depth + 1); break;
  case StmtKind::Elect: collect(*cast<ElectStmt>(&s)->body, regs, depth + 1); break;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    collect(*i->thenBody, regs, depth + 1);
    if (i->elseBody) collect(*i->elseBody, regs, depth + 1);
    break;
  }
  default: break;
  }
}

int64_t roundUp(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

} // namespace

int64_t estimateRegisters(const Kernel &kernel) {
  int64_t regs = 0;
  if (kernel.body) collect(*kernel.body, regs, 0);
  return regs + kRegisterOverhead;
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
