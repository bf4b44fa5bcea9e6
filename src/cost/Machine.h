// Machine: a GPU as the cost model sees it - peak rates, capacities, latencies and the efficiency
// parameters calibration fits - read from a data file (machines/*.json; docs/cost-model.md lists every
// field with its meaning and source).
//
// Lookup: `--machine NAME|PATH`; without it the machine whose "default_for" lists the kernel's target
// (sm_80 -> a100, sm_90/sm_90a -> h200, sm_100a -> b200).  NAME is searched in $CAKE_MACHINES_DIR, then in
// ../share/cake/machines relative to the running cakec (an installed cakec, the Python wheel's), then in the
// machines/ directory of the source tree cakec was built from (CAKE_MACHINES_DIR at build time).
#pragma once
#include "support/Arch.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::cost {

// Achieved fraction of a peak rate; calibration fits these.
struct Efficiencies {
  double hbmSimt = 0.88;       // HBM bandwidth reached by ld/st.global streams
  double hbmCpAsync = 0.85;    // ... by cp.async streams
  double hbmTma = 0.90;        // ... by TMA streams
  double l2 = 0.80;            // L2 <-> SM bandwidth reached by thread-issued loads/stores (ld/st, cp.async)
  double l2Tma = 0.80;         // ... by TMA boxes (whole lines, no LSU / L1 on the way)
  double shared = 0.90;        // shared-memory wavefront rate of thread accesses (ld/st.shared, ldmatrix)
  double sharedAsync = 0.90;   // ... of async-proxy traffic (TMA box writes/reads, wgmma operand reads)
  double mmaSync = 0.60;       // tensor-core rate reached by mma.sync (per-SM peak x this)
  double wgmma = 0.80;         // ... by wgmma
  double fp32 = 0.80;          // FP32 pipe
  double sfu = 0.90;           // MUFU pipe
  double warpIpc = 0.50;       // instructions per cycle one warp issues on its own (dependency stalls)
  double issue = 0.85;         // fraction of the 4 schedulers' slots used when enough warps are resident
};

struct Machine {
  std::string name;               // "h200"
  std::string description;
  std::string path;               // file it was read from
  std::vector<Arch> archs;        // targets whose code it runs (sm_90 and sm_90a for an H100)
  std::vector<Arch> defaultFor;   // targets for which it is the default machine
  int64_t sms = 0;
  double clockGhz = 0;
  double hbmBytesPerSec = 0;      // peak DRAM bandwidth (read + write)
  double l2Bytes = 0;             // capacity
  double l2UsableBytes = 0;       // what a kernel's working set can count on
  double l2BytesPerSec = 0;       // L2 -> SM peak bandwidth
  double sharedBytesPerClkPerSm = 128;
  int64_t sharedPerSm = 0;        // bytes of shared memory per SM (carveout max)
  int64_t sharedPerBlockMax = 0;  // opt-in per-block maximum
  int64_t sharedReservedPerBlock = 1024;   // system use per resident block
  int64_t registersPerSm = 65536;
  int64_t maxRegistersPerThread = 255;
  int64_t maxThreadsPerSm = 2048;
  int64_t maxBlocksPerSm = 32;
  double tensorFlopsPerClkPerSm = 0;   // dense 16-bit inputs (bf16/f16), f32 accumulate
  double fp32LanesPerClkPerSm = 0;     // FFMA lanes
  double sfuLanesPerClkPerSm = 16;
  double issuePerClkPerSm = 4;         // warp schedulers
  double dramLatencyNs = 0;            // a load that misses L2
  double l2LatencyNs = 0;
  double barrierCycles = 24;           // bar.sync with all warps arrived
  double launchOverheadUs = 0;         // fixed time per launch as measured (launch + event timing)
  Efficiencies eff;
  std::map<std::string, std::string> sources;   // field -> where the number comes from

  double clockHz() const { return clockGhz * 1e9; }
  bool runs(Arch a) const;
};

struct MachineLoadResult {
  std::optional<Machine> machine;
  std::string error;              // why not (file unreadable, malformed JSON, missing field)
};

// Parses a machine description (JSON text); `path` is recorded and used in messages.
MachineLoadResult parseMachine(std::string_view jsonText, const std::string &path);
// Machine descriptions over 16 MiB are refused (whatever the kind of file: FIFOs and devices too).
constexpr uint64_t kMaxMachineFileBytes = 16ull << 20;
MachineLoadResult loadMachineFile(const std::string &path);
// NAME or PATH (contains '/' or ends in .json) -> loaded machine; empty spec: the default for `arch`.
MachineLoadResult findMachine(const std::string &spec, Arch arch);
// Directories searched for machine names, in order.
std::vector<std::string> machineSearchDirs();
// Serialises a machine back to JSON (calibrate writes this).
std::string machineToJson(const Machine &m);

} // namespace cake::cost
