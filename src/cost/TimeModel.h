// TimeModel: predicted run time of a counted kernel (WorkProfile) on a machine, per-resource times, the
// bottleneck and the utilisation of each resource.
//
// Equations (docs/cost-model.md derives and sources each term):
//   busiest SM share   s = ceil(G / SMs) / G        (wave quantisation and the tail of the last wave)
//   an SM's work       max(s x the grid's count, the heaviest sampled block's count), per count: blocks that
//                      differ (a persistent grid with fewer tiles than blocks) are not averaged away
//   resident warps     w = min(b, ceil(G / SMs)) x warps per block      (b = blocks per SM, Occupancy.h)
//   issue     T = s x instructions / (min(4 x e_issue, w x e_ipc) x f)
//   tensor    T = s x (mma.sync FLOPs / (P_tc x e_mma x min(1, w / 4)) + wgmma FLOPs / (P_tc x e_wgmma)) / f
//   fp32      T = s x FP32 lane ops / (P_fp32 x e_fp32 x f)          sfu: likewise with P_sfu, e_sfu
//   shared    T = s' x (thread wavefronts / e_smem + async wavefronts / e_smem_async) / (B_smem / 128 x f)
//             (async: TMA box writes/reads and wgmma operand reads, whole swizzled rows; thread: the rest;
//             s' = s raised by the heaviest block's share of the wavefronts)
//   l2        T = (thread-issued L2 bytes / e_l2 + TMA box bytes / e_l2_tma) / B_l2
//   hbm       T = DRAM reads / (B_hbm x e_read) + DRAM writes / (B_hbm x e_write)   (L2Reuse.h; e_read is
//             the byte-weighted harmonic mean of e_simt, e_cp_async, e_tma over the kinds of loads)
//   mlp       T = (DRAM reads x L_dram + L2 hits x L_l2) / (active SMs x b' x bytes in flight per block)
//             (Little's law: a latency-bound stream cannot exceed in-flight bytes / latency)
//   latency   T = waves x (chain instructions / (e_ipc x f) + (load rounds + async waits) x L_mem
//                          + barriers x c_bar / f)             waves = ceil(G / (SMs x b))
//   kernel    = max of the above + L_dram (the first load of the kernel overlaps nothing)
//   total     = kernel + launch overhead
// f is the SM clock, P_* per-SM peak rates per clock, e_* efficiencies (Machine.h), L_mem the load latency
// blended by the L2 hit rate.  Utilisation of a resource = work / (peak rate x kernel time).
#pragma once
#include "cost/L2Reuse.h"
#include "cost/Machine.h"
#include "cost/Occupancy.h"
#include "cost/WorkProfile.h"

#include <string>
#include <vector>

namespace cake::cost {

struct ResourceTime {
  std::string name;        // issue tensor fp32 sfu shared l2 hbm mlp latency
  double seconds = 0;
  double utilisation = 0;  // of the resource's peak over the kernel time (0 for the latency terms)
};

struct Estimate {
  std::string kernel;
  std::string machine;
  WorkProfile profile;
  Occupancy occupancy;
  HbmTraffic hbm;
  double seconds = 0;          // predicted total, launch overhead included
  double kernelSeconds = 0;
  double overheadSeconds = 0;
  std::vector<ResourceTime> resources;
  std::string bottleneck;
  double waves = 0;            // G / (SMs x b), fractional
  double tailEfficiency = 1;   // waves / ceil(waves)
  std::string compileProblem;  // non-empty: code generation cannot lower this kernel ("line 12: ... [E0707]")
  double tflops() const;       // achieved tensor + FP32 TFLOP/s at the predicted time
  double hbmTBps() const;      // achieved DRAM TB/s
};

Estimate predictTime(const WorkProfile &profile, const Occupancy &occupancy, const Machine &machine);

} // namespace cake::cost
