// Column-block offsets, the swizzle XOR and wgmma descriptor plans (see SharedLayout.h).
#include "frontend/SharedLayout.h"

namespace cake {

int64_t swizzleOffset(int64_t off, int64_t span) {
  const int64_t mask = span == 128 ? 0x70 : span == 64 ? 0x30 : span == 32 ? 0x10 : 0;
  return off ^ ((off >> 3) & mask);
}

int64_t ColumnBlocks::physical(int64_t linear) const {
  const int64_t tile = tileBytes(), rowBytes = cols * elemBytes;
  if (linear < 0 || tile <= 0 || rowBytes <= 0) return linear;
  const int64_t outer = linear / tile, in = linear % tile;
  const int64_t r = in / rowBytes, c = (in % rowBytes) / elemBytes, byteInElem = in % elemBytes;
  return swizzleOffset(outer * tile + offset(r, c) + byteInElem, span);
}

uint64_t WgmmaDescriptorPlan::descriptor(uint32_t startAddress, size_t kk) const {
  const uint32_t start = startAddress + static_cast<uint32_t>(kk < stepBytes.size() ? stepBytes[kk] : 0);
  return (static_cast<uint64_t>(hiWord()) << 32) | loWord(start);
}

DescriptorResult planWgmmaDescriptor(const ColumnBlocks &arr, bool mnMajor, int64_t tileRows, int64_t tileCols,
                                     int64_t colPhase, int64_t kInst) {
  DescriptorResult r;
  WgmmaDescriptorPlan p;
  p.mnMajor = mnMajor;
  switch (arr.span) {
  case 128: p.mode = 1; break;
  case 64: p.mode = 2; break;
  case 32: p.mode = 3; break;
  default:
    r.why = "a shared operand without a 32B/64B/128B swizzle";
    return r;
  }
  if (arr.rowStride() != arr.span) {
    r.why = "a shared operand whose rows (" + std::to_string(arr.cols * arr.elemBytes) +
            " bytes) are narrower than the swizzle span (" + std::to_string(arr.span) + " bytes)";
    return r;
  }
  const int64_t w = arr.blockCols();
  p.sboField = static_cast<uint32_t>(8 * arr.span) >> 4;
  if (!mnMajor) {
    // [MN, K]: every instruction reads kInst columns (kInst * elemBytes bytes) inside one column block.
    if (tileCols % kInst != 0) {
      r.why = "a K-major tile whose " + std::to_string(tileCols) + " columns (K) are not a multiple of " +
              std::to_string(kInst);
      return r;
    }
    p.lboField = 1;
    for (int64_t kc = 0; kc < tileCols; kc += kInst) {
      const int64_t c = colPhase + kc;
      if (c % w + kInst > w) {
        r.why = "a K-major tile whose columns " + std::to_string(c) + ".." + std::to_string(c + kInst - 1) +
                " straddle two column blocks of " + std::to_string(w);
        return r;
      }
      p.stepBytes.push_back(arr.offset(0, c) - arr.offset(0, colPhase));
    }
  } else {
    // [K, MN]: whole column blocks along MN, kInst rows per instruction.
    if (colPhase != 0 || tileCols % w != 0) {
      r.why = "an MN-major tile that is not whole column blocks of " + std::to_string(w) +
              " columns (the swizzle span) starting on a block boundary";
      return r;
    }
    if (tileRows % kInst != 0) {
      r.why = "an MN-major tile whose " + std::to_string(tileRows) + " rows (K) are not a multiple of " +
              std::to_string(kInst);
      return r;
    }
    const int64_t lbo = arr.blockBytes();
    if (lbo % 16 != 0 || (lbo >> 4) > 0x3fff) {
      r.why = "an MN-major tile whose column blocks are " + std::to_string(lbo) +
              " bytes apart (the descriptor holds at most 262128)";
      return r;
    }
    p.lboField = static_cast<uint32_t>(lbo >> 4);
    for (int64_t kr = 0; kr < tileRows; kr += kInst) p.stepBytes.push_back(kr * arr.span);
  }
  r.plan = p;
  return r;
}

} // namespace cake
