// Cost model: the work WorkCounter counts for the samples at concrete shapes equals hand counts (bytes,
// FLOPs, tails, fragments), plus the per-warp address analysis (sectors, bank conflicts) and L2 reuse.
#include "cost/AccessPattern.h"
#include "cost/L2Reuse.h"
#include "cost_test_helpers.h"

#include <set>

using namespace cake;
using namespace cake::cost;
using namespace cake::costtest;

TEST_CASE("cost counting: vector_add moves 4N bytes in and 2N out for any N, tail included") {
  auto a = analyse(readSample("vector_add.cake"));
  for (int64_t n : {1, 7, 1007, 4000, 1 << 20}) {
    CAPTURE(n);
    WorkProfile p = count(*a, {{"N", n}}).profile;
    CHECK(p.count(Count::SimtLoadBytes) == doctest::Approx(4.0 * n));
    CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(2.0 * n));
    CHECK(p.count(Count::Fp32Flops) == doctest::Approx(1.0 * n));   // one f32 add per element
    CHECK(p.blocks == (n + 2047) / 2048);
  }
  // full 16-byte vectors of a warp are perfectly coalesced: L2 sectors = bytes
  WorkProfile big = count(*a, {{"N", 1 << 20}}).profile;
  CHECK(big.count(Count::L2LoadBytes) == doctest::Approx(4.0 * (1 << 20)));
}

TEST_CASE("cost counting: simt_gemm FLOPs, tile loads and stores") {
  auto a = analyse(readSample("simt_gemm.cake"));
  const int64_t M = 256, N = 256, K = 256;
  WorkProfile p = count(*a, {{"M", M}, {"N", N}, {"K", K}}).profile;
  CHECK(p.count(Count::Fp32Flops) == doctest::Approx(2.0 * M * N * K));
  // every block reads its A panel (BM x K) and B panel (K x BN) once: 4 blocks x (128 + 128) x 256 x 4 bytes
  CHECK(p.count(Count::SimtLoadBytes) == doctest::Approx(4.0 * (128 + 128) * K * 4));
  CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(4.0 * M * N));
  CHECK(p.count(Count::BlockBarriers) == doctest::Approx(4 * 8 * 2 * (K / 8)));   // 2 per k-tile per warp
}

TEST_CASE("cost counting: ampere_gemm mma.sync FLOPs, cp.async bytes, ldmatrix shared reads") {
  auto a = analyse(readSample("ampere_gemm.cake"),
                   {{"BM", 128}, {"BN", 256}, {"BK", 64}, {"WM", 64}, {"WN", 64}, {"S", 3}});
  const int64_t M = 256, N = 256, K = 256;
  KernelWork w = count(*a, {{"M", M}, {"N", N}, {"K", K}});
  const WorkProfile &p = w.profile;
  CHECK(p.count(Count::MmaSyncFlops) == doctest::Approx(2.0 * M * N * K));
  CHECK(p.count(Count::CpAsyncBytes) == doctest::Approx(2.0 * (128 * K + K * 256) * 2));   // 2 blocks
  CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(2.0 * M * N));
  // per warp and k-step: 4 ldmatrix.x4 of A + 4 ldmatrix.x4.trans of B = 4096 bytes; 16 k-steps, 16 warps;
  // plus the epilogue reading the C tile back from shared memory (M x N bf16)
  CHECK(p.count(Count::SharedLoadBytes) == doctest::Approx(4096.0 * (K / 16) * 16 + 2.0 * M * N));
  // padded rows: ldmatrix is conflict-free, one wavefront per 8x8 matrix
  CHECK(p.count(Count::SharedWavefronts) >= doctest::Approx(p.count(Count::SharedLoadBytes) / 128));
  CHECK(p.pipelineDepth == 2);   // cp.async.wait S - 2 = 1 -> two groups in flight
}

TEST_CASE("cost counting: tf32_gemm mma.sync m16n8k8 tf32 counts its FLOPs at half the 16-bit tensor rate") {
  auto a = analyse(readSample("tf32_gemm.cake"));
  const int64_t M = 128, N = 64, K = 128;
  WorkProfile p = count(*a, {{"M", M}, {"N", N}, {"K", K}}).profile;
  // MmaSyncFlops is time at the machine's bf16/f16 dense rate: tf32 FLOPs count twice
  CHECK(p.count(Count::MmaSyncFlops) == doctest::Approx(2.0 * 2.0 * M * N * K));
}

TEST_CASE("cost counting: hopper_gemm wgmma FLOPs, TMA boxes, roles and the TMA ring") {
  auto a = analyse(readSample("hopper_gemm.cake"));
  const int64_t M = 4096, N = 4096, K = 4096;
  KernelWork w = count(*a, {{"M", M}, {"N", N}, {"K", K}});
  const WorkProfile &p = w.profile;
  CHECK(p.count(Count::WgmmaFlops) == doctest::Approx(2.0 * M * N * K));
  CHECK(p.count(Count::MmaSyncFlops) == 0);
  CHECK(p.count(Count::TmaLoadBytes) == doctest::Approx(512.0 * (K / 64) * (128 + 256) * 64 * 2));
  CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(2.0 * M * N));
  CHECK(p.pipelineDepth == 4);
  CHECK(p.inflightBytesPerBlock == doctest::Approx(4.0 * (128 + 256) * 64 * 2));
  REQUIRE(p.roleNames.size() == 3);
  CHECK(p.roleInstructions[0] > 0);                        // load
  CHECK(p.roleInstructions[1] > p.roleInstructions[0]);    // math issues more
  // Every count per role (the --timeline picture's input): the roles' counts sum to the totals; the load role
  // issues the TMA boxes, the math role the wgmma FLOPs and the stores.
  REQUIRE(p.roleTotals.size() == 3);
  for (size_t c = 0; c < kCountKinds; ++c) {
    double sum = p.roleTotals[0][c] + p.roleTotals[1][c] + p.roleTotals[2][c];
    CHECK_MESSAGE(sum == doctest::Approx(p.totals[c]), countName(static_cast<Count>(c)));
  }
  CHECK(p.roleTotals[0][size_t(Count::TmaLoadBytes)] == doctest::Approx(p.count(Count::TmaLoadBytes)));
  CHECK(p.roleTotals[1][size_t(Count::WgmmaFlops)] == doctest::Approx(p.count(Count::WgmmaFlops)));
  CHECK(p.roleTotals[1][size_t(Count::SimtStoreBytes)] == doctest::Approx(p.count(Count::SimtStoreBytes)));
  CHECK(p.roleInstructions[1] == p.roleTotals[1][size_t(Count::WarpInstructions)]);
  CHECK(w.occupancy.registersFromRoles);
  CHECK(w.occupancy.blockRegisters == 128 * 40 + 256 * 232);
}

TEST_CASE("cost counting: row_softmax reads and writes the matrix once, one ex2 per element") {
  auto a = analyse(readSample("row_softmax.cake"));
  for (auto [r, c] : {std::pair<int64_t, int64_t>{64, 1024}, {37, 1000}, {16, 8192}}) {
    CAPTURE(r);
    CAPTURE(c);
    WorkProfile p = count(*a, {{"R", r}, {"C", c}}).profile;
    CHECK(p.count(Count::SimtLoadBytes) == doctest::Approx(2.0 * r * c));
    CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(2.0 * r * c));
    CHECK(p.count(Count::SfuLaneOps) >= doctest::Approx(1.0 * r * c));
  }
}

TEST_CASE("cost counting: an SFU intrinsic issues as many instructions as ptxas makes of it") {
  // One call per thread of 32 threads: the SFU lane operations are the same, the issue slots are what ptxas
  // makes of each form on sm_90 (ex2 / rsqrt / lg2 4, rcp 7, sqrt.rn 8, the .ftz forms and tanh 1).
  auto issued = [](const std::string &call) {
    auto a = analyse("target sm_90;\nkernel k(X: f32[32], Y: f32[32]) grid(1) threads(32) {\n  let t = i32(tid.x);\n"
                     "  Y[t] = " + call + "(X[t]);\n}\n");
    WorkProfile p = count(*a, {}).profile;
    CHECK(p.count(Count::SfuLaneOps) == doctest::Approx(32.0));
    return p.count(Count::WarpInstructions);
  };
  const double ftz = issued("ex2.ftz");
  CHECK(issued("ex2") == doctest::Approx(ftz + 3));
  CHECK(issued("rsqrt") == doctest::Approx(ftz + 3));
  CHECK(issued("lg2") == doctest::Approx(ftz + 3));
  CHECK(issued("rcp") == doctest::Approx(ftz + 6));
  CHECK(issued("sqrt") == doctest::Approx(ftz + 7));
  for (const char *one : {"rcp.ftz", "rsqrt.ftz", "lg2.ftz", "tanh"}) CHECK(issued(one) == doctest::Approx(ftz));
}

TEST_CASE("cost counting: a shape variable pinned by requires(G == ...) follows from the others") {
  auto a = analyse(readSample("block_reduce_sum.cake"));
  WorkProfile p = count(*a, {{"N", 10000}}).profile;
  CHECK(p.blocks == 3);   // cdiv(10000, 4096)
  CHECK(p.count(Count::SimtLoadBytes) == doctest::Approx(4.0 * 10000));
  CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(4.0 * 3));
}

TEST_CASE("cost counting: sectors and bank conflicts from lane addresses") {
  LaneValue contiguous = LaneValue::laneIndex(0, 0);
  LaneValue words = applyIntOp(IntOp::Mul, contiguous, LaneValue::uniform(4));
  CHECK(globalSectors(words, 4, 0xffffffffu) == 4);                       // 128 contiguous bytes
  LaneValue strided = applyIntOp(IntOp::Mul, contiguous, LaneValue::uniform(128));
  CHECK(globalSectors(strided, 4, 0xffffffffu) == 32);                    // one sector per lane
  CHECK(globalSectors(applyIntOp(IntOp::Mul, contiguous, LaneValue::uniform(16)), 16, 0xffffffffu) == 16);
  CHECK(sharedWavefronts(words, 4, 0xffffffffu) == 1);                    // one word per bank
  CHECK(sharedWavefronts(LaneValue::uniform(64), 4, 0xffffffffu) == 1);   // broadcast
  CHECK(sharedWavefronts(applyIntOp(IntOp::Mul, words, LaneValue::uniform(2)), 4, 0xffffffffu) == 2);
  CHECK(sharedWavefronts(strided, 4, 0xffffffffu) == 32);                 // all lanes in bank 0
  CHECK(sharedWavefronts(applyIntOp(IntOp::Mul, contiguous, LaneValue::uniform(16)), 16, 0xffffffffu) == 4);
}

TEST_CASE("cost counting: unique DRAM bytes from block dependence - L2 reuse of GEMM panels") {
  auto a = analyse(readSample("simt_gemm.cake"));
  // 1024^3: A and B are 4 MB each and fit in L2: each is read from DRAM once, although 8 blocks read each
  // panel
  KernelWork w = count(*a, {{"M", 1024}, {"N", 1024}, {"K", 1024}});
  HbmTraffic small = estimateHbmTraffic(w.profile, 132 * 2, 50e6);
  CHECK(small.fitsInL2);
  CHECK(small.requestedReadBytes == doctest::Approx(8.0 * 2 * 1024 * 1024 * 4));
  CHECK(small.readBytes == doctest::Approx(2.0 * 1024 * 1024 * 4));
  CHECK(small.writeBytes == doctest::Approx(1024.0 * 1024 * 4));
  // with an L2 too small for the working set, per-wave re-reads push DRAM traffic above the unique bytes
  HbmTraffic tiny = estimateHbmTraffic(w.profile, 16, 1e6);
  CHECK(!tiny.fitsInL2);
  CHECK(tiny.readBytes > small.readBytes);
  CHECK(tiny.readBytes <= tiny.requestedReadBytes);
}

TEST_CASE("cost counting: L2 reuse through a persistent kernel's tile loop (wave footprints)") {
  // hopper_gemm_persistent at 4096^3: 132 blocks, each starting at tile pair block.x / 2 of a grouped
  // order (GM = 8).  Every block looks distinct to the block-dependence rule, but the first wave of 132
  // blocks reads only 16 distinct A panels (8 m-pairs x 2 ranks) and 18 B half-panels (9 n-tiles x 2
  // ranks): the probed addresses say so, and DRAM reads fall to about requested x 16/132 and x 18/132.
  auto a = analyse(readSample("hopper_gemm_persistent.cake"));
  KernelWork w = count(*a, {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  std::vector<size_t> distinct;
  for (const SiteTraffic &s : w.profile.sites) {
    if (s.store) continue;
    REQUIRE(s.waveAddresses.size() == 132);
    distinct.push_back(std::set<int64_t>(s.waveAddresses.begin(), s.waveAddresses.end()).size());
  }
  CHECK(distinct == std::vector<size_t>{16, 18});
  HbmTraffic t = estimateHbmTraffic(w.profile, 132, 50e6);
  CHECK(!t.fitsInL2);   // 64 MB of A and B
  CHECK(t.readBytes < 0.2 * t.requestedReadBytes);
  CHECK(t.readBytes >= t.uniqueReadBytes);
  // a data-parallel grid keeps the dependence rule (no loop bound reads the block): nothing probed
  auto g = analyse(readSample("ampere_gemm.cake"));
  for (const SiteTraffic &s : count(*g, {{"M", 4096}, {"N", 4096}, {"K", 4096}}).profile.sites)
    CHECK(s.waveAddresses.empty());
}

TEST_CASE("cost counting: swizzled and column-blocked shared accesses are counted at their physical addresses") {
  // One warp reads column 0 (or 64) of 32 rows: unswizzled 128-byte rows put every lane in bank 0 (32
  // wavefronts); the 128B swizzle moves row r to 16-byte chunk r % 8, so lanes r and r + 8 share a bank:
  // 4 wavefronts.  Column 64 of a column-blocked [32, 128] array is column 0 of block 1: the same 4.
  auto kernelWith = [](const std::string &decl, const std::string &col) {
    return "target sm_90a;\nkernel k(X: bf16[32] align(16)) grid(1) threads(32) {\n  shared s: " + decl +
           ";\n  X[i32(lane)] = s[i32(lane), " + col + "];\n}\n";
  };
  auto wavefronts = [&](const std::string &decl, const std::string &col) {
    auto a = analyse(kernelWith(decl, col));
    return count(*a, {}).profile.count(Count::SharedWavefronts);
  };
  CHECK(wavefronts("bf16[32, 64]", "0") == doctest::Approx(32));
  CHECK(wavefronts("bf16[32, 64] swizzle(128B) align(1024)", "0") == doctest::Approx(4));
  CHECK(wavefronts("bf16[32, 128] swizzle(128B) align(1024)", "64") == doctest::Approx(4));
  CHECK(wavefronts("bf16[32, 128] swizzle(128B) align(1024)", "0") == doctest::Approx(4));
}

TEST_CASE("cost counting: atomics count lane updates and same-address contention") {
  // One block of 4 warps; every thread adds to one shared element (uniform: 31 serialized per warp) and to
  // its own global element (distinct: none serialized), and to bucket lane % 4 (8 lanes per address: 7).
  auto a = analyse(R"(target sm_90a;
kernel k(X: f32[N], Y: f32[N]) requires(N >= 128) grid(1) threads(128) {
  shared total: f32[4];
  let t = i32(tid.x);
  red.add total[0], 1.0;
  red.add Y[t], X[t];
  let old = atom.add(total[lane % 4], 2.0);
}
)");
  WorkProfile p = count(*a, {{"N", 128}}).profile;
  CHECK(p.count(Count::AtomicLaneOps) == doctest::Approx(3.0 * 128));
  CHECK(p.count(Count::AtomicSerialUpdates) == doctest::Approx(4.0 * (31 + 0 + 7)));
  CHECK(p.count(Count::SimtStoreBytes) == doctest::Approx(4.0 * 128));
}
