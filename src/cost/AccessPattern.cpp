// Sector and bank-conflict counting for one warp access (see AccessPattern.h).
#include "cost/AccessPattern.h"

#include <algorithm>
#include <bit>

namespace cake::cost {

int64_t idealWavefronts(int64_t bytesPerLane, uint32_t mask) {
  int64_t bytes = bytesPerLane * std::popcount(mask);
  return std::max<int64_t>(1, (bytes + 127) / 128);
}

int64_t globalSectors(const LaneValue &byteOffset, int64_t bytesPerLane, uint32_t mask) {
  if (mask == 0) return 0;
  int lanes = std::popcount(mask);
  if (!byteOffset.known() || bytesPerLane <= 0) return std::max<int64_t>(1, (bytesPerLane * lanes + 31) / 32);
  // Each lane touches sectors [first, last]; collect and count distinct ones (at most 32 * 2 entries for
  // accesses <= 32 bytes; larger per-lane accesses add their span).
  int64_t sectors[64];
  int n = 0;
  int64_t extra = 0;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u)) continue;
    int64_t first = byteOffset.at(l) >> 5;
    int64_t last = (byteOffset.at(l) + bytesPerLane - 1) >> 5;
    sectors[n++] = first;
    if (last != first) {
      sectors[n++] = last;
      extra += std::max<int64_t>(0, last - first - 1);   // sectors strictly inside a long access
    }
  }
  std::sort(sectors, sectors + n);
  return (std::unique(sectors, sectors + n) - sectors) + extra;
}

int64_t sharedWavefronts(const LaneValue &byteOffset, int64_t bytesPerLane, uint32_t mask) {
  if (mask == 0) return 0;
  if (!byteOffset.known() || bytesPerLane <= 0 || bytesPerLane > 16) return idealWavefronts(bytesPerLane, mask);
  int lanesPerPhase = bytesPerLane >= 16 ? 8 : bytesPerLane >= 8 ? 16 : 32;
  int64_t total = 0;
  for (int phase = 0; phase < 32 / lanesPerPhase; ++phase) {
    // distinct 4-byte words per bank in this phase
    int64_t words[32 * 4];
    int n = 0;
    for (int l = phase * lanesPerPhase; l < (phase + 1) * lanesPerPhase; ++l) {
      if (!(mask >> l & 1u)) continue;
      int64_t first = byteOffset.at(l) >> 2;
      int64_t count = std::max<int64_t>(1, (bytesPerLane + 3) / 4);
      for (int64_t w = 0; w < count && n < 128; ++w) words[n++] = first + w;
    }
    if (n == 0) continue;
    std::sort(words, words + n);
    n = static_cast<int>(std::unique(words, words + n) - words);
    int perBank[32] = {};
    int worst = 0;
    for (int i = 0; i < n; ++i) {
      int bank = static_cast<int>(((words[i] % 32) + 32) % 32);
      worst = std::max(worst, ++perBank[bank]);
    }
    total += worst;
  }
  return std::max<int64_t>(1, total);
}

} // namespace cake::cost
