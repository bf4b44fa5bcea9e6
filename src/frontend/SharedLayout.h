// Shared-memory tile layouts and wgmma matrix descriptors, as pure arithmetic (no PTX): the column-block
// layout of swizzled arrays whose rows are wider than the swizzle span, the swizzle XOR, and the
// descriptor fields and per-instruction start offsets of a wgmma shared operand in K-major or MN-major
// layout (docs/hopper.md "wgmma", docs/language.md "Shared layouts").
//
// Column blocks: the innermost two dims [R, C] of a swizzled array with C * elemBytes > span are stored as
// C * elemBytes / span blocks of [R, span / elemBytes] elements, one after the other; each block is the
// row-major swizzled tile TMA writes for a box one span wide.  Element [r, c] of the [R, C] tile is at
//     (c / W) * R * span  +  r * span  +  (c % W) * elemBytes          (W = span / elemBytes)
// before the swizzle; an array whose rows are exactly one span (or that is not swizzled) is the plain
// row-major r * C * elemBytes + c * elemBytes.  Outer dims keep their row-major strides of R * C elements.
//
// wgmma descriptors (PTX ISA "Matrix Descriptor", "Strides"; units of 16 bytes in the fields):
//   K-major  (tile stored [MN, K], read `.T` for B / plain for A): LBO unused for swizzled layouts
//            (encoded 1), SBO = 8 * span (from one 8-row core-matrix group to the next along MN); the
//            instruction kk starts kk * 16 elements further along K, which crosses into the next column
//            block after W elements.
//   MN-major (tile stored [K, MN], B plain / A `.T`; transpose immediate 1): LBO = the distance between
//            column blocks (span / 16 rows of 16 bytes along MN each; R * span), SBO = 8 * span (from one
//            8-row group along K to the next); instruction kk starts kk * 16 rows further (16 * span).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake {

struct ColumnBlocks {
  int64_t rows = 0;        // R: the second-innermost dim (1 for a rank-1 array)
  int64_t cols = 0;        // C: the innermost dim
  int64_t elemBytes = 2;
  int64_t span = 0;        // swizzle span in bytes (0 = not swizzled)

  bool blocked() const { return span > 0 && cols * elemBytes > span; }
  int64_t blockCols() const { return blocked() ? span / elemBytes : cols; }   // W
  int64_t rowStride() const { return blocked() ? span : cols * elemBytes; }   // bytes from row r to r + 1
  int64_t blockBytes() const { return rows * rowStride(); }                   // bytes from block j to j + 1
  int64_t tileBytes() const { return rows * cols * elemBytes; }
  // The physical (column-blocked, then swizzled) byte offset of the byte at row-major offset `linear` from
  // the array's start (outer dims in units of whole [R, C] tiles).
  int64_t physical(int64_t linear) const;
  // Unswizzled byte offset of element [r, c] from the start of the [R, C] tile.
  int64_t offset(int64_t r, int64_t c) const {
    if (!blocked()) return (r * cols + c) * elemBytes;
    const int64_t w = blockCols();
    return (c / w) * blockBytes() + r * span + (c % w) * elemBytes;
  }
};

// The 32/64/128-byte swizzle of a byte offset from a 8 * span aligned base: bits [4, 4 + log2(span / 16))
// XOR bits [7, ..) (the CUTLASS Swizzle<3|2|1, 4, 3> / TMA patterns).
int64_t swizzleOffset(int64_t off, int64_t span);

struct WgmmaDescriptorPlan {
  bool mnMajor = false;
  uint32_t lboField = 1;            // bits 16-29 (bytes >> 4)
  uint32_t sboField = 0;            // bits 32-45 (bytes >> 4)
  uint32_t mode = 0;                // bits 62-63: 1 128B, 2 64B, 3 32B
  std::vector<int64_t> stepBytes;   // start offset of instruction kk from the tile's start, in bytes
  uint32_t hiWord() const { return sboField | (mode << 30); }
  uint32_t loWord(uint32_t startAddress) const { return ((startAddress >> 4) & 0x3fff) | (lboField << 16); }
  uint64_t descriptor(uint32_t startAddress, size_t kk) const;
};

// The descriptor of a wgmma operand tile stored [tileRows, tileCols] in `arr`, whose first column is
// `colPhase` columns into its column block (c0 % W; must be known); K = kTotal in steps of kInst elements.
// K-major: the tile is [MN, K]; MN-major: [K, MN].  Returns the plan or why the tile cannot be described.
struct DescriptorResult {
  std::optional<WgmmaDescriptorPlan> plan;
  std::string why;
};
DescriptorResult planWgmmaDescriptor(const ColumnBlocks &arr, bool mnMajor, int64_t tileRows, int64_t tileCols,
                                     int64_t colPhase, int64_t kInst);

} // namespace cake
