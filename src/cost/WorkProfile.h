// WorkProfile: everything the cost model counted for one kernel at one concrete shape - the output of
// WorkCounter and the input of the time model (TimeModel.h).  It holds no machine rates or efficiencies, so
// calibration computes it once per measurement and re-evaluates only the time model.
//
// Counts are totals over the whole grid (every block), in the units named below.  The per-block "chain"
// numbers describe one block's critical path (its busiest warp), for the latency terms.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cake {
struct Decl;
}

namespace cake::cost {

enum class Count : uint8_t {
  WarpInstructions,   // issued warp instructions, every role
  Fp32LaneOps,        // lane operations on the FP32 pipe (fadd, fmul, ffma, fmin/fmax, conversions)
  Fp32Flops,          // FLOPs of those (ffma = 2)
  SfuLaneOps,         // MUFU lane operations (ex2, rcp, rsqrt, sqrt, lg2)
  MmaSyncFlops,       // tensor-core FLOPs issued by mma.sync (16-bit-input equivalent: f8 counts half, tf32 twice)
  WgmmaFlops,         // tensor-core FLOPs issued by wgmma (16-bit-input equivalent)
  SimtLoadBytes,      // bytes requested by ld.global (vector or scalar) of active lanes
  CpAsyncBytes,       // bytes copied global -> shared by cp.async
  TmaLoadBytes,       // bytes of TMA load boxes (one copy per issuing CTA, before multicast)
  SimtStoreBytes,     // bytes stored by st.global, including fragment stores
  TmaStoreBytes,      // bytes of TMA store boxes
  L2LoadBytes,        // L2 -> SM traffic: 32-byte sectors touched by loads x 32 (TMA: box bytes)
  L2StoreBytes,       // SM -> L2 traffic: sectors touched by stores x 32
  SharedLoadBytes,    // shared bytes read by threads (ld.shared, ldmatrix, stmatrix/tma.store sources)
  SharedStoreBytes,   // shared bytes written (st.shared, cp.async / TMA destinations, stmatrix)
  SharedWavefronts,   // shared-memory cycles of thread accesses (bank conflicts included)
  WgmmaSharedBytes,   // shared bytes wgmma reads for its operands (async proxy)
  BlockBarriers,      // barrier instructions executed (warp level)
  MulticastSavedBytes,// L2 reads avoided by TMA multicast
  WarpSyncs,          // bar.warp.sync instructions executed (warp level; syncwarp)
  AtomicLaneOps,      // lane updates by atom.* / red.* (global and shared)
  AtomicSerialUpdates,// updates that wait behind another lane's update of the same address (contention)
  Count_
};
constexpr size_t kCountKinds = static_cast<size_t>(Count::Count_);
const char *countName(Count c);   // "warp_instructions", ...

using Counts = std::array<double, kCountKinds>;

// One global-memory access site (a load or store expression, a cp.async, a TMA op) and what it moves.
struct SiteTraffic {
  const void *site = nullptr;         // the AST node
  const Decl *tensor = nullptr;       // the global tensor parameter
  bool store = false;
  double bytes = 0;                   // total bytes over the grid
  uint32_t blockDeps = 0;             // which block coordinates its addresses depend on (kDepBlockX..Z)
  std::vector<int64_t> waveAddresses; // lane 0's address here in blocks 0, 1, ... in launch order, when
                                      // probed (WaveFootprint.cpp); empty when not
};

struct TensorTraffic {
  std::string name;
  const Decl *decl = nullptr;
  double sizeBytes = 0;               // the whole tensor at this shape
  double readBytes = 0;               // requested by all blocks
  double writeBytes = 0;
};

struct WorkProfile {
  std::string kernel;
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t blocks = 1;
  int64_t threads = 0;
  int64_t warps = 0;
  std::array<int64_t, 3> cluster = {1, 1, 1};
  int64_t sharedBytes = 0;            // dynamic shared memory per block
  int64_t registersPerThread = 0;     // estimate (or regs() budgets), see Occupancy.h
  int64_t blockRegisters = 0;         // registers the block allocates
  bool registersFromRoles = false;    // every warp is in a role with regs(): setmaxnreg budgets

  Counts totals{};                    // over the grid
  Counts heaviestBlock{};             // per count, the most any one sampled block does (blocks of a persistent
                                      // grid with fewer tiles than blocks differ: some do one tile, some none)
  std::vector<std::string> roleNames;         // per role, then "(no role)"
  std::vector<double> roleInstructions;       // warp instructions per role over the grid
  std::vector<Counts> roleTotals;             // every count per role over the grid (they sum to `totals`)

  // One block's critical path (its busiest warp), averaged over the sampled blocks.
  double chainInstructions = 0;       // warp instructions issued by the busiest warp
  double chainSyncLoadRounds = 0;     // rounds of synchronous global loads it waits for
  double chainAsyncWaits = 0;         // waits on cp.async groups / TMA barriers, divided by pipeline depth
  double chainBarriers = 0;           // block/named barriers it passes
  // The same four for the sampled block whose chain is longest, each the most any sampled block has (a
  // persistent grid with fewer tiles than blocks: the blocks with a tile against the averaged idle ones).
  double heaviestChainInstructions = 0, heaviestChainSyncLoadRounds = 0, heaviestChainAsyncWaits = 0,
         heaviestChainBarriers = 0;
  double inflightBytesPerBlock = 0;   // bytes of global loads a block keeps in flight (Little's law)
  int64_t pipelineDepth = 1;          // stages of the deepest async pipeline (cp.async wait N + 1, TMA ring)

  std::vector<SiteTraffic> sites;
  std::vector<TensorTraffic> tensors;
  std::vector<std::string> notes;     // approximations the counter had to make (unknown trip counts, ...)
  int64_t walkedStatements = 0;       // statements the counter walked in full (its own cost) ...
  int64_t tracedStatements = 0;       // ... and only traced for their control path (ControlTrace.cpp)

  double count(Count c) const { return totals[static_cast<size_t>(c)]; }
  double tensorFlops() const { return count(Count::MmaSyncFlops) + count(Count::WgmmaFlops); }
  double globalLoadBytes() const {
    return count(Count::SimtLoadBytes) + count(Count::CpAsyncBytes) + count(Count::TmaLoadBytes);
  }
  double globalStoreBytes() const { return count(Count::SimtStoreBytes) + count(Count::TmaStoreBytes); }
};

} // namespace cake::cost
