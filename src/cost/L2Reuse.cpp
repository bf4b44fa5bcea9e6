// DRAM traffic from access sites and their block dependence (see L2Reuse.h).
#include "cost/L2Reuse.h"

#include "cost/LaneValue.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace cake::cost {

namespace {

double distinctInGrid(uint32_t deps, const std::array<int64_t, 3> &g) {
  double n = 1;
  if (deps & kDepBlockX) n *= static_cast<double>(g[0]);
  if (deps & kDepBlockY) n *= static_cast<double>(g[1]);
  if (deps & kDepBlockZ) n *= static_cast<double>(g[2]);
  return n;
}

// Distinct coordinate tuples among `wave` consecutive blocks in launch order (x fastest).
double distinctInWave(uint32_t deps, const std::array<int64_t, 3> &g, double wave) {
  double gx = static_cast<double>(g[0]), gy = static_cast<double>(g[1]), gz = static_cast<double>(g[2]);
  double xs = std::min(wave, gx);
  double rows = std::min(gy * gz, std::ceil(wave / gx));
  double ys = std::min(gy, rows);
  double zs = std::min(gz, std::ceil(wave / (gx * gy)));
  if ((deps & kDepBlockAny) == kDepBlockAny) return std::min(wave, gx * gy * gz);
  double n = 1;
  if ((deps & kDepBlockX) && (deps & kDepBlockY)) return std::min(wave, gx * gy) * ((deps & kDepBlockZ) ? zs : 1);
  if (deps & kDepBlockX) n *= xs;
  if (deps & kDepBlockY) n *= ys;
  if (deps & kDepBlockZ) n *= zs;
  return n;
}

} // namespace

HbmTraffic estimateHbmTraffic(const WorkProfile &p, int64_t concurrentBlocks, double l2UsableBytes) {
  HbmTraffic t;
  double blocks = static_cast<double>(std::max<int64_t>(1, p.blocks));
  double wave = std::min(blocks, static_cast<double>(std::max<int64_t>(1, concurrentBlocks)));
  double waves = std::ceil(blocks / wave);
  t.wave = wave;
  std::map<const Decl *, double> sizeOf;
  for (const TensorTraffic &tt : p.tensors) sizeOf[tt.decl] = tt.sizeBytes;

  std::map<const Decl *, double> uniqueByTensor, waveByTensor, requestedByTensor, writesByTensor;
  for (const SiteTraffic &s : p.sites) {
    if (s.store) {
      writesByTensor[s.tensor] += s.bytes;
      continue;
    }
    double perBlock = s.bytes / blocks;
    double unique = std::min(s.bytes, perBlock * distinctInGrid(s.blockDeps, p.grid));
    // the blocks of a wave read one copy of what they share: the distinct addresses among them when the
    // counter probed them (through tile loops too), else the distinct coordinate values the address reads
    // (a probed site's floor is its tensor's size, applied below: its block dependence says little)
    double rereads = 0;
    if (!s.waveAddresses.empty()) {
      size_t w = static_cast<size_t>(std::min<double>(wave, static_cast<double>(s.waveAddresses.size())));
      std::set<int64_t> distinct(s.waveAddresses.begin(), s.waveAddresses.begin() + static_cast<std::ptrdiff_t>(w));
      rereads = std::min(s.bytes, s.bytes * static_cast<double>(distinct.size()) / static_cast<double>(w));
    } else {
      rereads = std::min(s.bytes, std::max(unique, waves * perBlock * distinctInWave(s.blockDeps, p.grid, wave)));
    }
    uniqueByTensor[s.tensor] += unique;
    waveByTensor[s.tensor] += rereads;
    requestedByTensor[s.tensor] += s.bytes;
  }
  double workingSet = 0;
  for (auto &[tensor, unique] : uniqueByTensor) {
    double size = sizeOf.count(tensor) ? sizeOf[tensor] : 0;
    if (size > 0) unique = std::min(unique, size);
    workingSet += unique;
    t.requestedReadBytes += requestedByTensor[tensor];
  }
  t.uniqueReadBytes = workingSet;
  t.fitsInL2 = workingSet <= l2UsableBytes;
  if (t.fitsInL2) {
    t.readBytes = workingSet;
  } else {
    for (const auto &[tensor, bytes] : waveByTensor) t.readBytes += std::max(bytes, uniqueByTensor[tensor]);
  }
  for (const auto &[tensor, bytes] : writesByTensor) {
    double size = sizeOf.count(tensor) ? sizeOf[tensor] : 0;
    t.writeBytes += size > 0 ? std::min(bytes, size) : bytes;
  }
  return t;
}

} // namespace cake::cost
