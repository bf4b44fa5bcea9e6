// Unit tests of the shared-memory layout arithmetic (src/frontend/SharedLayout.cpp): column-block offsets,
// the swizzle XOR, and the wgmma descriptor plans for K-major and MN-major tiles (fields and k-steps).
#include "frontend/SharedLayout.h"

#include <doctest/doctest.h>

#include <set>

using namespace cake;

TEST_CASE("column blocks: rows one span wide are plain row-major") {
  ColumnBlocks l{64, 64, 2, 128};
  CHECK_FALSE(l.blocked());
  CHECK(l.blockCols() == 64);
  CHECK(l.rowStride() == 128);
  CHECK(l.offset(3, 5) == 3 * 128 + 10);
  ColumnBlocks none{16, 40, 4, 0};   // unswizzled: never blocked
  CHECK_FALSE(none.blocked());
  CHECK(none.offset(2, 7) == (2 * 40 + 7) * 4);
}

TEST_CASE("column blocks: a [64, 128] bf16 tile with a 128-byte span is two [64, 64] blocks") {
  ColumnBlocks l{64, 128, 2, 128};
  REQUIRE(l.blocked());
  CHECK(l.blockCols() == 64);
  CHECK(l.rowStride() == 128);
  CHECK(l.blockBytes() == 8192);
  CHECK(l.offset(0, 0) == 0);
  CHECK(l.offset(0, 63) == 126);
  CHECK(l.offset(0, 64) == 8192);
  CHECK(l.offset(1, 64) == 8192 + 128);
  CHECK(l.offset(63, 127) == 8192 + 63 * 128 + 126);
  // Every element has its own offset, and the tile is dense.
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < 128; ++c) seen.insert(l.offset(r, c));
  CHECK(seen.size() == 64 * 128);
  CHECK(*seen.rbegin() == l.tileBytes() - 2);
  // 64-byte span, f32: blocks of 16 columns.
  ColumnBlocks f{8, 64, 4, 64};
  CHECK(f.blockCols() == 16);
  CHECK(f.offset(1, 17) == 8 * 64 + 64 + 4);
}

TEST_CASE("swizzle XOR: bits [4,7) ^= bits [7,10) for 128B, fewer bits for 64B / 32B") {
  CHECK(swizzleOffset(0, 128) == 0);
  CHECK(swizzleOffset(128, 128) == 128 + 16);       // row 1: 16-byte chunk 0 -> 1
  CHECK(swizzleOffset(7 * 128 + 16, 128) == 7 * 128 + (1 ^ 7) * 16);
  CHECK(swizzleOffset(1024 + 128, 128) == 1024 + 128 + 16);   // the pattern repeats every 1024 bytes
  CHECK(swizzleOffset(3 * 64, 64) == 3 * 64 + ((3 * 64 >> 3) & 0x30));
  CHECK(swizzleOffset(5 * 32, 32) == 5 * 32 + ((5 * 32 >> 3) & 0x10));
  CHECK(swizzleOffset(100, 0) == 100);
}

TEST_CASE("wgmma descriptor: K-major [64, 64] bf16, 128B") {
  auto r = planWgmmaDescriptor(ColumnBlocks{64, 64, 2, 128}, false, 64, 64, 0, 16);
  REQUIRE(r.plan);
  CHECK_FALSE(r.plan->mnMajor);
  CHECK(r.plan->mode == 1);
  CHECK(r.plan->lboField == 1);
  CHECK(r.plan->sboField == 64);   // 8 rows * 128 bytes / 16
  CHECK(r.plan->hiWord() == (64u | (1u << 30)));
  CHECK(r.plan->stepBytes == std::vector<int64_t>{0, 32, 64, 96});
  // start 0x8400: address field 0x840, LBO 1 at bit 16, SBO 64 at bit 32, mode 1 at bit 62.
  CHECK(r.plan->descriptor(0x8400, 0) == ((uint64_t{1} << 62) | (uint64_t{64} << 32) | (uint64_t{1} << 16) | 0x840));
  CHECK(r.plan->descriptor(0x8400, 2) == ((uint64_t{1} << 62) | (uint64_t{64} << 32) | (uint64_t{1} << 16) | 0x844));
}

TEST_CASE("wgmma descriptor: K-major K = 128 over two column blocks steps into block 1") {
  auto r = planWgmmaDescriptor(ColumnBlocks{64, 128, 2, 128}, false, 64, 128, 0, 16);
  REQUIRE(r.plan);
  CHECK(r.plan->stepBytes == std::vector<int64_t>{0, 32, 64, 96, 8192, 8224, 8256, 8288});
  // A 16-column slice at column 56 straddles blocks 0 and 1: rejected; one at column 80 (phase 16 in block 1)
  // is one instruction.
  auto mid = planWgmmaDescriptor(ColumnBlocks{64, 128, 2, 128}, false, 64, 16, 56, 16);
  CHECK_FALSE(mid.plan);
  CHECK(mid.why.find("straddle") != std::string::npos);
  auto ok = planWgmmaDescriptor(ColumnBlocks{64, 128, 2, 128}, false, 64, 16, 16, 16);
  REQUIRE(ok.plan);
  CHECK(ok.plan->stepBytes == std::vector<int64_t>{0});
}

TEST_CASE("wgmma descriptor: MN-major [K = 64, N = 64] bf16, 128B") {
  auto r = planWgmmaDescriptor(ColumnBlocks{64, 64, 2, 128}, true, 64, 64, 0, 16);
  REQUIRE(r.plan);
  CHECK(r.plan->mnMajor);
  CHECK(r.plan->sboField == 64);          // 8 K-rows * 128 bytes
  CHECK(r.plan->lboField == 8192 / 16);   // the next 64-column block would be 64 rows * 128 bytes on
  CHECK(r.plan->stepBytes == std::vector<int64_t>{0, 2048, 4096, 6144});
}

TEST_CASE("wgmma descriptor: MN-major N = 128 over two blocks, and 64B swizzle") {
  auto r = planWgmmaDescriptor(ColumnBlocks{128, 128, 2, 128}, true, 128, 128, 0, 16);
  REQUIRE(r.plan);
  CHECK(r.plan->lboField == 128 * 128 / 16);
  CHECK(r.plan->stepBytes.size() == 8);
  CHECK(r.plan->stepBytes[7] == 7 * 16 * 128);
  auto s64 = planWgmmaDescriptor(ColumnBlocks{32, 64, 2, 64}, true, 32, 64, 0, 16);
  REQUIRE(s64.plan);
  CHECK(s64.plan->mode == 2);
  CHECK(s64.plan->sboField == 8 * 64 / 16);
  CHECK(s64.plan->lboField == 32 * 64 / 16);
  CHECK(s64.plan->stepBytes == std::vector<int64_t>{0, 1024});
}

TEST_CASE("wgmma descriptor: rejected MN-major and unswizzled tiles say why") {
  auto half = planWgmmaDescriptor(ColumnBlocks{64, 64, 2, 128}, true, 64, 32, 0, 16);
  CHECK_FALSE(half.plan);
  CHECK(half.why.find("whole column blocks") != std::string::npos);
  auto off = planWgmmaDescriptor(ColumnBlocks{64, 128, 2, 128}, true, 64, 64, 32, 16);
  CHECK_FALSE(off.plan);
  auto rows = planWgmmaDescriptor(ColumnBlocks{64, 64, 2, 128}, true, 24, 64, 0, 16);
  CHECK_FALSE(rows.plan);
  auto none = planWgmmaDescriptor(ColumnBlocks{64, 64, 2, 0}, false, 64, 64, 0, 16);
  CHECK_FALSE(none.plan);
  CHECK(none.why.find("swizzle") != std::string::npos);
}
