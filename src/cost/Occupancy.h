// Occupancy: how many blocks of a kernel are resident on one SM, and what limits it.
//
//   blocks/SM = min( max blocks per SM,
//                    floor(max threads per SM / threads per block),
//                    floor(register file / registers per block),
//                    floor(shared per SM / (shared per block + reserved per block)) )
// Registers per block: with regs(r) on every role (setmaxnreg), the block allocates the sum over warps of
// 32 x r (warps outside roles at the estimate); otherwise threads x registers per thread, rounded up to the
// allocation unit (8 registers per thread, 256 per warp).  Registers per thread come from a ptxas report
// when the caller has one, else from estimateRegisters(): the most 32-bit registers the register-resident `var`s
// (scalars, vectors, arrays, fragments) hold at once - each live from its declaration to the last statement of
// its block that names it - plus a fixed overhead for addresses, indices and temporaries, at most the machine's
// per-thread limit.
#pragma once
#include "cost/Machine.h"
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"

#include <optional>
#include <string>

namespace cake::cost {

constexpr int64_t kRegisterOverhead = 24;   // addresses, indices, loop counters, temporaries

struct Occupancy {
  int64_t blocksPerSm = 0;
  std::string limiter;             // "threads", "registers", "shared memory", "blocks per SM"
  int64_t registersPerThread = 0;
  int64_t blockRegisters = 0;
  bool registersFromRoles = false;
  bool registersEstimated = true;  // false when a ptxas report gave them
  bool registersCapped = false;    // the estimate was above the --maxrregcount cap, which binds instead
  int64_t residentWarps = 0;       // warps per SM at this occupancy
  std::string whyNot;              // blocksPerSm == 0: which limit one block already exceeds
};

// 32-bit registers per thread the kernel's variables need at their peak, plus kRegisterOverhead.
int64_t estimateRegisters(const Kernel &kernel);

// ptxasRegisters: a ptxas report's count (used as is); registerCap: --maxrregcount (.maxnreg in every entry),
// which bounds the estimate when there is no report.
Occupancy computeOccupancy(const Kernel &kernel, const KernelInfo &info, const Machine &machine,
                           std::optional<int64_t> ptxasRegisters = std::nullopt,
                           std::optional<int64_t> registerCap = std::nullopt);

} // namespace cake::cost
