// Roofline: an SVG picture of predicted kernels against a machine's ceilings (--roofline FILE.svg).
//
// Each point is one estimate (a kernel, or a variant of a --sweep): its FLOPs (tensor-core + FP32) over its
// predicted DRAM bytes (L2Reuse.h: reads + writes) give the arithmetic intensity on the x axis, its FLOPs
// over its predicted time (launch overhead included) the achieved rate on the y axis; both axes are log10.
// The ceilings come from the machine description, at peak (no efficiencies): the HBM roof
// (rate = intensity x hbm_bytes_per_s), the L2 roof (intensity x l2_bytes_per_s, drawn against the same
// DRAM intensity: a point under it that is far below the HBM roof moves more bytes through L2 than through
// DRAM), and the tensor-core and FP32 peaks (sms x per-clock rate x clock; FP32 counts an FFMA as 2 FLOPs).
// The axes span whole decades that hold every point and every ridge point.  Points are numbered by rank;
// a table beside the plot gives each number's label, predicted time, rate and bottleneck.  An estimate with
// no FLOPs or no DRAM bytes has no place on log axes and is listed under the table as not drawn.
//
// The text is written by hand (no library) with fixed-precision numbers, so the same estimates give the
// same bytes.
#pragma once
#include "cost/Machine.h"
#include "cost/TimeModel.h"

#include <string>
#include <vector>

namespace cake::cost {

struct RooflinePoint {
  std::string label;   // "BM=128 BN=256 S=4", or the kernel's name
  const Estimate *estimate = nullptr;
};

// `title` is the first line of the picture ("sweep of k.cake at M=4096,... on h200").
std::string renderRooflineSvg(const Machine &machine, const std::vector<RooflinePoint> &points,
                              const std::string &title);

} // namespace cake::cost
