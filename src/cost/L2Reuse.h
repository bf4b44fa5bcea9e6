// L2Reuse: the DRAM (HBM) traffic of a grid, from what each global access site requests and which block
// coordinates its addresses depend on (WorkCounter records both).
//
// Algorithm
//   unique bytes of a read site = min(requested, bytes per block x the number of distinct values of the
//   block coordinates its address depends on): A[m0 + r, k] in a GEMM depends on block.y only, so the
//   grid reads gy distinct A panels and every other block re-reads one of them.  Per tensor, unique bytes are
//   capped at the tensor's size.
//   If the unique bytes of all read tensors fit in the usable L2, each is read from DRAM once.  Otherwise
//   reuse is only caught among the blocks resident at the same time (a "wave" of SMs x blocks/SM blocks in
//   launch order, x fastest, which stream through K together): DRAM reads of a site = waves x bytes per
//   block x the distinct coordinates within one wave (x: min(W, gx); y: the rows the wave spans; both: W),
//   at least its unique bytes and at most what it requests.  Where the counter probed a site's address in
//   the first blocks in launch order (WorkCounter's WaveFootprint.cpp, which also sees through a persistent
//   kernel's tile loop), DRAM reads of the site = requested x D / W instead, D the distinct addresses among
//   the wave's W blocks, at least its tensor's share of the unique bytes.
//   Stores are written back once: min(requested, tensor size) per tensor.
#pragma once
#include "cost/WorkProfile.h"

namespace cake::cost {

struct HbmTraffic {
  double readBytes = 0;          // DRAM reads
  double writeBytes = 0;         // DRAM writes
  double uniqueReadBytes = 0;    // distinct bytes read (the floor)
  double requestedReadBytes = 0; // what the blocks ask L2 for
  bool fitsInL2 = true;          // the read working set fits the usable L2
  double wave = 0;               // blocks per wave used for the re-read estimate
};

HbmTraffic estimateHbmTraffic(const WorkProfile &profile, int64_t concurrentBlocks, double l2UsableBytes);

} // namespace cake::cost
