// Timeline: an SVG picture of how the cost model sees one block's pipeline, one lane per role
// (--timeline FILE.svg).  It is derived from the model's numbers, not measured.
//
// What the model provides: the per-resource times of the kernel on its busiest SM (TimeModel.h: issue,
// tensor, hbm, l2, ...), and every count per role (WorkProfile::roleTotals: bytes loaded and stored, tensor
// FLOPs, instructions of the warps of each role, or of the warps outside roles).  From them:
//   iterations per block  K = the busiest warp's async waits x pipeline depth (one wait per stage consumed),
//                         else its rounds of synchronous loads, else 1
//   block slots per SM    n = ceil(ceil(G / SMs) / b)           (b blocks per SM run side by side)
//   iteration             tau = (kernel time - epilogue) / (n x K)
//   a role's phases in one iteration, each a resource's time scaled by the role's share of that resource's
//   work, over n x K:
//     load     max(hbm read time, l2 time) x (the role's loaded bytes / all loaded bytes)
//     shared   shared time x (the role's shared wavefronts / all shared wavefronts)
//     tensor   tensor time x (the role's tensor FLOPs / all tensor FLOPs)
//     fp32     fp32 time x the role's share of FP32 lane ops + sfu time x its share of SFU lane ops
//     other    issue time x (the role's instructions / all instructions; those that start loads and MMAs too)
//     wait     what is left of tau (a role whose phases exceed tau is scaled to fit: the resources overlap)
//   epilogue   hbm write time x (the role's stored bytes / all stored bytes) / n, after the last iteration.
// The picture shows the first few iterations (at most 4) and the epilogue of one block; a role that loads
// is drawn load first, then its other phases (shared, tensor, fp32, other) and its wait; a role that does not is drawn
// waiting first (for its data), then working.  That order is schematic; the lengths are the model's.
#pragma once
#include "cost/Machine.h"
#include "cost/TimeModel.h"

#include <string>
#include <vector>

namespace cake::cost {

// One section per estimate (kernel); `title` heads the picture.
std::string renderTimelineSvg(const Machine &machine, const std::vector<const Estimate *> &estimates,
                              const std::string &title);

} // namespace cake::cost
