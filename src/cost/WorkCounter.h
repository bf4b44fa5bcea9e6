// WorkCounter: counts the work of one kernel at one concrete shape by interpreting its typed AST one warp
// at a time ("warp-level abstract interpretation").
//
// Algorithm
//   * Integer values are tracked exactly per lane (LaneValue): shape variables, ct params, tid/lane/warp,
//     block coordinates, loop variables, lets and integer vars.  Floats and memory contents are not values
//     the model follows (they never decide control flow in the samples; where they do, see below).
//   * Control flow runs under a 32-bit active mask: `if` splits the mask by the lanes' condition, `elect`
//     keeps one lane, a role body runs only on its warps, `return` retires lanes.  A warp instruction is
//     issued when at least one lane is active; per-lane work (bytes, FP32 ops) scales with the active lanes.
//     A condition the model cannot evaluate walks both branches at half weight (and is noted).
//   * Loops with known bounds: the body is walked for the first iteration; when no branch or bound inside it
//     read the loop variable (LaneValue dependence bits) its counts are scaled by the trip count.  Otherwise
//     up to 16 iterations are walked exactly; longer loops (up to 256 iterations, bodies without var
//     assignments) are grouped into classes of iterations with the same control path and one iteration per
//     class is walked (IterationClasses.cpp); the rest walk their first and last 6 iterations plus one
//     middle iteration scaled by the rest (noted).  Loops whose bounds differ per lane run max-trip
//     iterations under the shrinking mask.
//   * Warps: one walk per role class (warps of the same role, or of no role); when a branch read the warp
//     index, every other warp of the class is traced (its control path only, ControlTrace.cpp) and reuses
//     the walked warp's counts when the paths are equal, else it is walked.  Blocks: block (0,0,0) is
//     walked; when a branch read a block coordinate, the corner blocks (last x, last y, both) are traced or
//     walked the same way and weighted by how many blocks each represents, which is exact for the usual
//     tail guards.
//   * Operations add their work: global loads/stores (bytes, 32-byte sectors from the lanes' addresses),
//     cp.async and TMA boxes (+ multicast), shared accesses (bank-conflict wavefronts from the addresses,
//     ideal for swizzled arrays), ldmatrix/stmatrix, mma.sync and wgmma FLOPs and operand reads, FP32/SFU
//     lane operations, barriers, and one issue slot per instruction (loop overhead for rolled loops).
//   * Per access site the block coordinates its addresses depend on are recorded (for L2 reuse, L2Reuse.h),
//     and the busiest warp's critical path (instructions, load rounds, async waits, barriers) and the bytes
//     in flight per block (Little's law) are kept for the latency terms.
#pragma once
#include "cost/Machine.h"
#include "cost/ShapeBinding.h"
#include "cost/WorkProfile.h"
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"

namespace cake::cost {

// How much of the kernel the counter walks.  Summarised: the samples, classes and traces above (what
// --estimate uses).  Exhaustive: every block, every warp and every loop iteration walked in full - the
// reference the summaries are tested against (tests/unit/test_cost_summaries.cpp); small shapes only.
enum class CountMode : uint8_t { Summarised, Exhaustive };

// Counts one kernel at `binding`.  Never fails: what it cannot follow is approximated and listed in
// WorkProfile::notes.
WorkProfile countWork(const Kernel &kernel, const KernelInfo &info, const ShapeBinding &binding,
                      CountMode mode = CountMode::Summarised);

} // namespace cake::cost
