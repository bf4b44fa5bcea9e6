// The time model: per-resource times, bottleneck and utilisation (equations in TimeModel.h).
#include "cost/TimeModel.h"

#include <algorithm>
#include <cmath>

namespace cake::cost {

double Estimate::tflops() const {
  return kernelSeconds > 0 ? (profile.tensorFlops() + profile.count(Count::Fp32Flops)) / seconds / 1e12 : 0;
}

double Estimate::hbmTBps() const { return seconds > 0 ? (hbm.readBytes + hbm.writeBytes) / seconds / 1e12 : 0; }

Estimate predictTime(const WorkProfile &p, const Occupancy &occ, const Machine &m) {
  Estimate e;
  e.kernel = p.kernel;
  e.machine = m.name;
  e.profile = p;
  e.occupancy = occ;
  const Efficiencies &eff = m.eff;
  double f = m.clockHz();
  double G = static_cast<double>(std::max<int64_t>(1, p.blocks));
  double S = static_cast<double>(std::max<int64_t>(1, m.sms));
  double b = static_cast<double>(std::max<int64_t>(1, occ.blocksPerSm));
  double perSmBlocks = std::ceil(G / S);
  double share = perSmBlocks / G;
  double residentBlocks = std::min(b, perSmBlocks);
  double warps = residentBlocks * static_cast<double>(std::max<int64_t>(1, p.warps));
  double activeSms = std::min(S, G);
  e.waves = G / (S * b);
  double wavesCeil = std::ceil(e.waves);
  e.tailEfficiency = e.waves / wavesCeil;

  e.hbm = estimateHbmTraffic(p, static_cast<int64_t>(S * b), m.l2UsableBytes);

  // An SM's work: its even share of the grid's, and at least the heaviest block's (an SM cannot finish
  // before the block that does the most; with one block per SM that block is the whole story).
  auto perSm = [&](Count c) { return std::max(p.count(c) * share, p.heaviestBlock[static_cast<size_t>(c)]); };
  double issueRate = std::min(m.issuePerClkPerSm * eff.issue, warps * eff.warpIpc);
  double tIssue = perSm(Count::WarpInstructions) / (issueRate * f);
  double mmaWarpFactor = std::min(1.0, warps / 4);
  double tTensor = (perSm(Count::MmaSyncFlops) / (m.tensorFlopsPerClkPerSm * eff.mmaSync * mmaWarpFactor) +
                    perSm(Count::WgmmaFlops) / (m.tensorFlopsPerClkPerSm * eff.wgmma)) / f;
  double tFp32 = perSm(Count::Fp32LaneOps) / (m.fp32LanesPerClkPerSm * eff.fp32 * f);
  double tSfu = perSm(Count::SfuLaneOps) / (m.sfuLanesPerClkPerSm * eff.sfu * f);
  // Shared memory: async-proxy traffic (TMA boxes written/read, wgmma operands: whole swizzled 128-byte rows,
  // no bank conflicts) runs at e_shared_async; thread accesses (ld/st.shared, ldmatrix, cp.async) at e_shared.
  double asyncWavefronts = std::min(p.count(Count::SharedWavefronts),
                                    (p.count(Count::WgmmaSharedBytes) + p.count(Count::TmaLoadBytes) +
                                     p.count(Count::MulticastSavedBytes) + p.count(Count::TmaStoreBytes)) / 128);
  double threadWavefronts = p.count(Count::SharedWavefronts) - asyncWavefronts;
  double sharedImbalance = p.count(Count::SharedWavefronts) > 0
                               ? perSm(Count::SharedWavefronts) / (p.count(Count::SharedWavefronts) * share) : 1;
  double tShared = share * sharedImbalance * (threadWavefronts / eff.shared + asyncWavefronts / eff.sharedAsync) /
                   (m.sharedBytesPerClkPerSm / 128 * f);
  // L2: TMA boxes (e_l2_tma) and thread-issued sectors (e_l2) share the L2 <-> SM bandwidth.
  double l2Bytes = p.count(Count::L2LoadBytes) + p.count(Count::L2StoreBytes);
  double l2TmaBytes = std::min(l2Bytes, p.count(Count::TmaLoadBytes) + p.count(Count::TmaStoreBytes));
  double tL2 = ((l2Bytes - l2TmaBytes) / eff.l2 + l2TmaBytes / eff.l2Tma) / m.l2BytesPerSec;

  double simt = p.count(Count::SimtLoadBytes), cpa = p.count(Count::CpAsyncBytes), tma = p.count(Count::TmaLoadBytes);
  double loads = simt + cpa + tma;
  double readEff = loads > 0 ? loads / (simt / eff.hbmSimt + cpa / eff.hbmCpAsync + tma / eff.hbmTma) : eff.hbmSimt;
  double writeEff = p.count(Count::TmaStoreBytes) > p.count(Count::SimtStoreBytes) ? eff.hbmTma : eff.hbmSimt;
  double tHbm = e.hbm.readBytes / (m.hbmBytesPerSec * readEff) + e.hbm.writeBytes / (m.hbmBytesPerSec * writeEff);

  double dram = m.dramLatencyNs * 1e-9, l2lat = m.l2LatencyNs * 1e-9;
  double l2Reads = std::max(e.hbm.requestedReadBytes, e.hbm.readBytes);
  double hitRate = l2Reads > 0 ? std::clamp(1 - e.hbm.readBytes / l2Reads, 0.0, 1.0) : 0;
  double memLatency = hitRate * l2lat + (1 - hitRate) * dram;
  double inflight = activeSms * residentBlocks * p.inflightBytesPerBlock;
  double tMlp = inflight > 0 ? (e.hbm.readBytes * dram + std::max(0.0, l2Reads - e.hbm.readBytes) * l2lat) / inflight : 0;

  auto chainTime = [&](double instructions, double syncLoadRounds, double asyncWaits, double barriers) {
    return instructions / (eff.warpIpc * f) + (syncLoadRounds + asyncWaits) * memLatency + barriers * m.barrierCycles / f;
  };
  double chain = chainTime(p.chainInstructions, p.chainSyncLoadRounds, p.chainAsyncWaits, p.chainBarriers);
  // An SM's blocks run their chains one wave after another, and no SM finishes before its longest block does.
  double tLatency = std::max(wavesCeil * chain, chainTime(p.heaviestChainInstructions, p.heaviestChainSyncLoadRounds,
                                                          p.heaviestChainAsyncWaits, p.heaviestChainBarriers));

  auto util = [&](double work, double peakPerSec) { return peakPerSec > 0 ? work / peakPerSec : 0; };
  struct Term { const char *name; double t; double atPeak; };
  Term terms[] = {
      {"issue", tIssue, util(perSm(Count::WarpInstructions), m.issuePerClkPerSm * f)},
      {"tensor", tTensor, util(perSm(Count::MmaSyncFlops) + perSm(Count::WgmmaFlops), m.tensorFlopsPerClkPerSm * f)},
      {"fp32", tFp32, util(perSm(Count::Fp32LaneOps), m.fp32LanesPerClkPerSm * f)},
      {"sfu", tSfu, util(perSm(Count::SfuLaneOps), m.sfuLanesPerClkPerSm * f)},
      {"shared", tShared, util(perSm(Count::SharedWavefronts), m.sharedBytesPerClkPerSm / 128 * f)},
      {"l2", tL2, util(l2Bytes, m.l2BytesPerSec)},
      {"hbm", tHbm, util(e.hbm.readBytes + e.hbm.writeBytes, m.hbmBytesPerSec)},
      {"mlp", tMlp, 0},
      {"latency", tLatency, 0},
  };
  double worst = 0;
  for (const Term &t : terms)
    if (t.t > worst) {
      worst = t.t;
      e.bottleneck = t.name;
    }
  e.kernelSeconds = worst + dram;
  e.overheadSeconds = m.launchOverheadUs * 1e-6;
  e.seconds = e.kernelSeconds + e.overheadSeconds;
  for (const Term &t : terms) e.resources.push_back({t.name, t.t, e.kernelSeconds > 0 ? t.atPeak / e.kernelSeconds : 0});
  return e;
}

} // namespace cake::cost
