// Text and JSON rendering of estimates (see Report.h).
#include "cost/Report.h"
#include "support/JsonText.h"

#include "cost/ShapeBinding.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace cake::cost {

std::string formatSeconds(double s) {
  std::ostringstream os;
  os << std::fixed;
  if (s >= 1e-3) os << std::setprecision(3) << s * 1e3 << " ms";
  else os << std::setprecision(2) << s * 1e6 << " us";
  return os.str();
}

std::string formatCount(double n, const char *unit) {
  static const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(n) >= 1000 && i < 5) {
    n /= 1000;
    ++i;
  }
  std::ostringstream os;
  os << std::setprecision(n >= 100 ? 4 : 3) << n << " " << prefixes[i] << unit;
  return os.str();
}

std::string formatBytes(double b) { return formatCount(b, "B"); }

std::string jsonString(std::string_view s) { return jsonQuote(s); }

std::string jsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

namespace {

std::string percent(double x) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(0) << x * 100 << "%";
  return os.str();
}

} // namespace

void renderEstimateText(const std::vector<Estimate> &estimates, const std::map<std::string, int64_t> &shape,
                        std::ostream &os) {
  for (size_t i = 0; i < estimates.size(); ++i) {
    const Estimate &e = estimates[i];
    const WorkProfile &p = e.profile;
    if (i) os << '\n';
    os << "kernel " << e.kernel << " at " << shapeToString(shape) << " on " << e.machine << "\n";
    os << "  predicted   " << formatSeconds(e.seconds) << "  (kernel " << formatSeconds(e.kernelSeconds)
       << " + launch " << formatSeconds(e.overheadSeconds) << ")   bottleneck: " << e.bottleneck << "\n";
    os << "  launch      grid " << p.grid[0] << " x " << p.grid[1] << " x " << p.grid[2] << " = " << p.blocks
       << " blocks of " << p.threads << " threads; " << e.occupancy.blocksPerSm << " block(s)/SM (limited by "
       << e.occupancy.limiter << "); " << std::fixed << std::setprecision(2) << e.waves << " waves, tail efficiency "
       << percent(e.tailEfficiency) << std::defaultfloat << "\n";
    os << "  resources   " << p.registersPerThread << " registers/thread"
       << (p.registersFromRoles             ? " (regs() budgets)"
           : e.occupancy.registersCapped    ? " (--maxrregcount)"
           : e.occupancy.registersEstimated ? " (estimated)"
                                            : " (ptxas)")
       << ", " << p.sharedBytes << " bytes shared/block\n";
    os << "  work        tensor " << formatCount(p.tensorFlops(), "FLOP");
    if (p.count(Count::WgmmaFlops) > 0) os << " (wgmma)";
    else if (p.count(Count::MmaSyncFlops) > 0) os << " (mma.sync)";
    os << ", fp32 " << formatCount(p.count(Count::Fp32Flops), "FLOP") << ", sfu "
       << formatCount(p.count(Count::SfuLaneOps), "op") << ", " << formatCount(p.count(Count::WarpInstructions), "")
       << "warp instructions\n";
    os << "  memory      DRAM " << formatBytes(e.hbm.readBytes) << " read (unique " << formatBytes(e.hbm.uniqueReadBytes)
       << (e.hbm.fitsInL2 ? ", fits in L2" : ", exceeds L2: per-wave re-reads") << ") + "
       << formatBytes(e.hbm.writeBytes) << " written; L2 "
       << formatBytes(p.count(Count::L2LoadBytes) + p.count(Count::L2StoreBytes)) << "; shared "
       << formatBytes(p.count(Count::SharedLoadBytes) + p.count(Count::SharedStoreBytes) +
                      p.count(Count::WgmmaSharedBytes))
       << " (" << formatCount(p.count(Count::SharedWavefronts), "") << "wavefronts)";
    if (p.count(Count::MulticastSavedBytes) > 0)
      os << "; multicast saves " << formatBytes(p.count(Count::MulticastSavedBytes)) << " of L2 reads";
    os << "\n";
    os << "  loads       ld.global " << formatBytes(p.count(Count::SimtLoadBytes)) << ", cp.async "
       << formatBytes(p.count(Count::CpAsyncBytes)) << ", tma " << formatBytes(p.count(Count::TmaLoadBytes))
       << "; stores " << formatBytes(p.globalStoreBytes()) << "\n";
    if (p.count(Count::AtomicLaneOps) > 0) {
      auto number = [](double n) {   // "67.1 M", "0" (no unit: no trailing blank)
        std::string t = formatCount(n, "");
        while (!t.empty() && t.back() == ' ') t.pop_back();
        return t;
      };
      os << "  atomics     " << number(p.count(Count::AtomicLaneOps)) << " lane updates, "
         << number(p.count(Count::AtomicSerialUpdates)) << " serialized behind another lane's update of one address\n";
    }
    os << "  pipeline    depth " << p.pipelineDepth << ", " << formatBytes(p.inflightBytesPerBlock)
       << " in flight per block; busiest warp: " << formatCount(p.chainInstructions, "") << "instructions, "
       << std::setprecision(4) << p.chainSyncLoadRounds + p.chainAsyncWaits << " exposed load waits, "
       << p.chainBarriers << " barriers\n";
    double totalInstr = p.count(Count::WarpInstructions);
    os << "  issue       ";
    bool first = true;
    for (size_t r = 0; r < p.roleNames.size(); ++r) {
      if (p.roleInstructions[r] <= 0) continue;
      os << (first ? "" : ", ") << p.roleNames[r] << " " << percent(totalInstr > 0 ? p.roleInstructions[r] / totalInstr : 0);
      first = false;
    }
    os << "\n  resource    time        utilisation\n";
    for (const ResourceTime &r : e.resources) {
      std::ostringstream line;
      line << "    " << std::left << std::setw(10) << r.name << std::setw(12) << formatSeconds(r.seconds)
           << (r.name == "mlp" || r.name == "latency" ? std::string("-") : percent(r.utilisation))
           << (r.name == e.bottleneck ? "   <- bottleneck" : "");
      os << line.str() << "\n";
    }
    for (const std::string &n : p.notes) os << "  note: " << n << "\n";
    if (!e.compileProblem.empty()) os << "  would not compile: " << e.compileProblem << "\n";
  }
}

std::string estimateToJson(const Estimate &e, const std::map<std::string, int64_t> &shape) {
  const WorkProfile &p = e.profile;
  std::ostringstream os;
  os << "{\"kernel\":" << jsonString(e.kernel) << ",\"machine\":" << jsonString(e.machine) << ",\"shape\":{";
  bool first = true;
  for (const auto &[k, v] : shape) {
    os << (first ? "" : ",") << jsonString(k) << ":" << v;
    first = false;
  }
  os << "},\"predicted_ms\":" << jsonNumber(e.seconds * 1e3) << ",\"kernel_ms\":" << jsonNumber(e.kernelSeconds * 1e3)
     << ",\"launch_overhead_ms\":" << jsonNumber(e.overheadSeconds * 1e3)
     << ",\"bottleneck\":" << jsonString(e.bottleneck) << ",\"grid\":[" << p.grid[0] << "," << p.grid[1] << ","
     << p.grid[2] << "],\"blocks\":" << p.blocks << ",\"threads\":" << p.threads
     << ",\"blocks_per_sm\":" << e.occupancy.blocksPerSm << ",\"occupancy_limiter\":" << jsonString(e.occupancy.limiter)
     << ",\"waves\":" << jsonNumber(e.waves) << ",\"tail_efficiency\":" << jsonNumber(e.tailEfficiency)
     << ",\"registers_per_thread\":" << p.registersPerThread << ",\"registers_source\":"
     << jsonString(p.registersFromRoles             ? "regs"
                   : e.occupancy.registersCapped    ? "maxrregcount"
                   : e.occupancy.registersEstimated ? "estimate"
                                                    : "ptxas")
     << ",\"shared_bytes\":" << p.sharedBytes << ",\"counts\":{";
  for (size_t i = 0; i < kCountKinds; ++i)
    os << (i ? "," : "") << jsonString(countName(static_cast<Count>(i))) << ":" << jsonNumber(p.totals[i]);
  os << "},\"dram\":{\"read_bytes\":" << jsonNumber(e.hbm.readBytes) << ",\"write_bytes\":" << jsonNumber(e.hbm.writeBytes)
     << ",\"unique_read_bytes\":" << jsonNumber(e.hbm.uniqueReadBytes)
     << ",\"requested_read_bytes\":" << jsonNumber(e.hbm.requestedReadBytes)
     << ",\"fits_in_l2\":" << (e.hbm.fitsInL2 ? "true" : "false") << "},\"pipeline\":{\"depth\":" << p.pipelineDepth
     << ",\"inflight_bytes_per_block\":" << jsonNumber(p.inflightBytesPerBlock)
     << ",\"chain_instructions\":" << jsonNumber(p.chainInstructions)
     << ",\"chain_load_rounds\":" << jsonNumber(p.chainSyncLoadRounds)
     << ",\"chain_async_waits\":" << jsonNumber(p.chainAsyncWaits) << ",\"chain_barriers\":" << jsonNumber(p.chainBarriers)
     << "},\"issue_by_role\":{";
  first = true;
  for (size_t r = 0; r < p.roleNames.size(); ++r) {
    os << (first ? "" : ",") << jsonString(p.roleNames[r]) << ":" << jsonNumber(p.roleInstructions[r]);
    first = false;
  }
  os << "},\"resources\":[";
  for (size_t i = 0; i < e.resources.size(); ++i)
    os << (i ? "," : "") << "{\"name\":" << jsonString(e.resources[i].name)
       << ",\"ms\":" << jsonNumber(e.resources[i].seconds * 1e3)
       << ",\"utilisation\":" << jsonNumber(e.resources[i].utilisation) << "}";
  os << "],\"notes\":[";
  for (size_t i = 0; i < p.notes.size(); ++i) os << (i ? "," : "") << jsonString(p.notes[i]);
  os << "],\"compiles\":" << (e.compileProblem.empty() ? "true" : "false");
  if (!e.compileProblem.empty()) os << ",\"compile_error\":" << jsonString(e.compileProblem);
  os << "}";
  return os.str();
}

void renderEstimateJson(const std::vector<Estimate> &estimates, const std::map<std::string, int64_t> &shape,
                        std::ostream &os) {
  os << "{\"format\":\"cake-estimate\",\"version\":1,\"kernels\":[";
  for (size_t i = 0; i < estimates.size(); ++i) os << (i ? ",\n" : "\n") << estimateToJson(estimates[i], shape);
  os << "\n]}\n";
}

} // namespace cake::cost
