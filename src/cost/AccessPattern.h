// AccessPattern: what one warp-wide memory instruction costs, from the byte address of every active lane.
//
//   global:  the number of distinct 32-byte sectors the active lanes touch (the unit in which L1/L2 move
//            data): a coalesced 16-byte-per-lane access of 32 lanes touches 16 sectors = 512 bytes; a strided
//            one touches up to 32 sectors per 4-byte request.
//   shared:  the number of wavefronts (shared-memory cycles, 128 bytes each): lanes are served in phases
//            (accesses of 16 bytes: 4 phases of 8 lanes; 8 bytes: 2 of 16; <= 4 bytes: 1 of 32); within a
//            phase each of the 32 four-byte banks serves one distinct 4-byte word per cycle (lanes reading
//            the same word are a broadcast), so a phase takes max over banks of the distinct words mapped to
//            that bank.  The wavefront count is the sum over phases.
// Addresses are offsets from an allocation assumed 128-byte aligned (sema aligns shared arrays to >= 16 and
// swizzled ones to 1024; global tensors to their align()).
#pragma once
#include "cost/LaneValue.h"

#include <cstdint>

namespace cake::cost {

// Distinct 32-byte sectors touched by `bytesPerLane` bytes at each active lane's byte offset.
int64_t globalSectors(const LaneValue &byteOffset, int64_t bytesPerLane, uint32_t mask);
// Shared-memory wavefronts of one warp access (see above).  Unknown addresses: the conflict-free count.
int64_t sharedWavefronts(const LaneValue &byteOffset, int64_t bytesPerLane, uint32_t mask);
// The conflict-free wavefront count: bytes of the active lanes / 128, at least 1.
int64_t idealWavefronts(int64_t bytesPerLane, uint32_t mask);

} // namespace cake::cost
