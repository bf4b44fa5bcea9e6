// Cost model: occupancy limits, waves and the tail of the last wave, the time model's bottleneck, machine
// descriptions, sweeps and calibration statistics.
#include "cost/Calibration.h"
#include "cost/Occupancy.h"
#include "cost/Sweep.h"
#include "cost/TimeModel.h"
#include "cost_test_helpers.h"

using namespace cake;
using namespace cake::cost;
using namespace cake::costtest;

namespace {
std::string kernelWith(const std::string &shared, int threads, const std::string &vars = "") {
  return "target sm_90a;\nkernel k(X: f32[N]) requires(N >= 1) grid(cdiv(N, " + std::to_string(threads) +
         ")) threads(" + std::to_string(threads) + ") {\n" + shared + vars +
         "  let i = i32(block.x) * " + std::to_string(threads) + " + i32(tid.x);\n  if i < N { X[i] = 1.0; }\n}\n";
}
} // namespace

TEST_CASE("register estimate: a var counts from its declaration to its block's last statement that names it") {
  auto estimate = [](const std::string &body) {
    auto a = analyse("target sm_90a;\nkernel k(X: f32[N]) requires(N >= 1) grid(1) threads(32) {\n" + body + "}\n");
    return estimateRegisters(*a->kernel()) - kRegisterOverhead;
  };
  // two phases in sequence: their arrays are never live together
  CHECK(estimate("  { var a: f32[100]; a[0] = 1.0; X[0] = a[0]; }\n  { var b: f32[60]; b[0] = 2.0; X[1] = b[0]; }\n")
        == 100);
  // a var named after a nested block stays live through it
  CHECK(estimate("  var c: f32[50];\n  c[0] = 3.0;\n  { var a: f32[100]; a[0] = 1.0; X[0] = a[0]; }\n"
                 "  X[2] = c[0];\n") == 150);
  // ... one last named before it does not
  CHECK(estimate("  var c: f32[50];\n  c[0] = 3.0;\n  X[2] = c[0];\n  { var a: f32[100]; a[0] = 1.0; X[0] = a[0]; }\n")
        == 100);
  // a loop body's peak adds to what is live around the loop; branches count the larger side
  CHECK(estimate("  var s: f32 = 0.0;\n  for i in 0..4 { var t: f32[8]; t[0] = s; s += t[0]; }\n"
                 "  if s > 0.0 { var u: f32[20]; u[0] = s; X[0] = u[0]; } else { var w: f32[30]; w[0] = s; X[0] = w[0]; }\n")
        == 31);
}

TEST_CASE("occupancy: threads, shared memory and register limits") {
  Machine h200 = machine("h200");
  {
    auto a = analyse(kernelWith("", 1024));
    Occupancy o = computeOccupancy(*a->kernel(), a->info(), h200);
    CHECK(o.blocksPerSm == 2);
    CHECK(o.limiter == "threads");
  }
  {
    auto a = analyse(kernelWith("  shared s: f32[25600];\n", 128));   // 100 KB + 1 KB reserved
    Occupancy o = computeOccupancy(*a->kernel(), a->info(), h200);
    CHECK(o.blocksPerSm == 2);
    CHECK(o.limiter == "shared memory");
  }
  {
    auto a = analyse(kernelWith("", 256, "  var big: f32[200];\n"));   // 224 registers -> 57344 per block
    Occupancy o = computeOccupancy(*a->kernel(), a->info(), h200);
    CHECK(o.registersPerThread == 200 + kRegisterOverhead);
    CHECK(o.blocksPerSm == 1);
    CHECK(o.limiter == "registers");
    Occupancy p = computeOccupancy(*a->kernel(), a->info(), h200, 64);   // a ptxas report wins
    CHECK(p.blocksPerSm == 4);
    CHECK(!p.registersEstimated);
    Occupancy c = computeOccupancy(*a->kernel(), a->info(), h200, std::nullopt, 128);   // --maxrregcount 128
    CHECK(c.registersPerThread == 128);
    CHECK(c.registersCapped);
    CHECK(c.blocksPerSm == 2);
    Occupancy loose = computeOccupancy(*a->kernel(), a->info(), h200, std::nullopt, 255);   // above: no effect
    CHECK(loose.registersPerThread == 200 + kRegisterOverhead);
    CHECK(!loose.registersCapped);
    Occupancy both = computeOccupancy(*a->kernel(), a->info(), h200, 64, 128);   // a ptxas report still wins
    CHECK(both.registersPerThread == 64);
    CHECK(!both.registersCapped);
  }
  {
    auto a = analyse(kernelWith("  shared s: f32[50000];\n", 128));   // 200 KB: fits sm_90a, not the A100
    CHECK(computeOccupancy(*a->kernel(), a->info(), h200).blocksPerSm == 1);
    Occupancy o = computeOccupancy(*a->kernel(), a->info(), machine("a100"));
    CHECK(o.blocksPerSm == 0);
    CHECK(o.whyNot.find("shared memory") != std::string::npos);
  }
}

TEST_CASE("waves: fractional waves, the tail of the last wave and the busiest SM's share") {
  Machine h200 = machine("h200");
  auto a = analyse(readSample("hopper_gemm.cake"));
  // 4096^2 output in 128 x 256 tiles: 512 blocks, 1 per SM -> 3.88 waves, the last one 88% full
  KernelWork w = count(*a, {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  Estimate e = predictTime(w.profile, w.occupancy, h200);
  CHECK(e.waves == doctest::Approx(512.0 / 132));
  CHECK(e.tailEfficiency == doctest::Approx(512.0 / 132 / 4));
  // one more row of tiles needs a fifth wave for 16 blocks: time rises by about a wave
  KernelWork w2 = count(*a, {{"M", 4096 + 128 * 8}, {"N", 4096}, {"K", 4096}});
  Estimate e2 = predictTime(w2.profile, w2.occupancy, h200);
  CHECK(e2.waves > 4);
  CHECK(e2.kernelSeconds > e.kernelSeconds * 1.15);
  CHECK(e.bottleneck != "latency");
  CHECK(e.seconds / (e.kernelSeconds + h200.launchOverheadUs * 1e-6) == doctest::Approx(1));
}

TEST_CASE("time model: a memory-bound copy is HBM-bound at about bytes / bandwidth") {
  Machine h200 = machine("h200");
  auto a = analyse(readSample("vector_add.cake"));
  KernelWork w = count(*a, {{"N", 1 << 28}});
  Estimate e = predictTime(w.profile, w.occupancy, h200);
  CHECK(e.bottleneck == "hbm");
  double bytes = 6.0 * (1 << 28);
  CHECK(e.kernelSeconds / (bytes / (h200.hbmBytesPerSec * h200.eff.hbmSimt)) == doctest::Approx(1).epsilon(0.05));
}

TEST_CASE("time model: TMA boxes use the L2 TMA efficiency, async-proxy shared traffic the async efficiency") {
  Machine h200 = machine("h200");
  auto hopper = analyse(readSample("hopper_gemm.cake"));
  KernelWork w = count(*hopper, {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  const WorkProfile &p = w.profile;
  auto term = [](const Estimate &e, const std::string &name) {
    for (const ResourceTime &r : e.resources)
      if (r.name == name) return r.seconds;
    FAIL("no resource " << name);
    return 0.0;
  };
  Estimate e = predictTime(p, w.occupancy, h200);
  // by hand: the TMA boxes at e_l2_tma, the fragment stores (thread-issued sectors) at e_l2
  double tma = p.count(Count::TmaLoadBytes) + p.count(Count::TmaStoreBytes);
  double thread = p.count(Count::L2LoadBytes) + p.count(Count::L2StoreBytes) - tma;
  CHECK(thread > 0);
  // (times are compared as ratios: doctest::Approx's default scale of 1 would accept any two microsecond values)
  CHECK(term(e, "l2") / ((thread / h200.eff.l2 + tma / h200.eff.l2Tma) / h200.l2BytesPerSec) == doctest::Approx(1));
  // every shared wavefront of hopper_gemm is async-proxy traffic: TMA writes and wgmma operand reads
  double asyncWavefronts = (p.count(Count::WgmmaSharedBytes) + p.count(Count::TmaLoadBytes)) / 128;
  CHECK(p.count(Count::SharedWavefronts) == doctest::Approx(asyncWavefronts));
  Machine slowShared = h200;
  slowShared.eff.shared = 0.01;      // thread accesses only: hopper_gemm's shared term must not move
  CHECK(term(predictTime(p, w.occupancy, slowShared), "shared") / term(e, "shared") == doctest::Approx(1));
  Machine slowAsync = h200;
  slowAsync.eff.sharedAsync = h200.eff.sharedAsync / 2;
  CHECK(term(predictTime(p, w.occupancy, slowAsync), "shared") / term(e, "shared") == doctest::Approx(2));
  // a SIMT kernel's L2 time does not depend on the TMA efficiency
  auto add = analyse(readSample("vector_add.cake"));
  KernelWork v = count(*add, {{"N", 1 << 24}});
  Machine slowTma = h200;
  slowTma.eff.l2Tma = 0.05;
  CHECK(term(predictTime(v.profile, v.occupancy, slowTma), "l2") / term(predictTime(v.profile, v.occupancy, h200), "l2") ==
        doctest::Approx(1));
  // hopper_gemm 4096^3 measured 0.1996 ms on the H200 (bench/results/2026-11-29-f908a094267d.json); the model
  // predicted 0.39 ms when TMA boxes went at the thread-issued L2 rate of a 7 TB/s L2
  CHECK(e.seconds / 0.1996e-3 == doctest::Approx(1).epsilon(0.2));
}

TEST_CASE("machines: every description loads, and the default machine follows the target") {
  for (const char *name : {"a100", "h100", "h200", "b200", "h200-prior"}) {
    CAPTURE(name);
    Machine m = machine(name);
    CHECK(m.sms > 0);
    CHECK(!m.sources.empty());
  }
  CHECK(machine("h200").runs(Arch::SM90a));
  CHECK(!machine("a100").runs(Arch::SM90a));
  MachineLoadResult bad = parseMachine("{\"name\": \"x\", \"archs\": [\"sm_80\"]}", "x.json");
  CHECK(!bad.machine);
  CHECK(bad.error.find("missing field") != std::string::npos);
  MachineLoadResult round = parseMachine(machineToJson(machine("h200")), "round.json");
  REQUIRE_MESSAGE(round.machine, round.error);
  CHECK(round.machine->eff.wgmma == doctest::Approx(machine("h200").eff.wgmma));
}

TEST_CASE("sweep: parsing, expansion order, errors") {
  SweepParseResult r = parseSweep({"BM=64,128", "S=3,4,5"});
  REQUIRE(r.badItem.empty());
  CHECK(sweepSize(r.axes) == 6);
  auto variants = expandSweep(r.axes);
  REQUIRE(variants.size() == 6);
  CHECK(variants[0].at("BM") == 64);
  CHECK(variants[0].at("S") == 3);
  CHECK(variants[1].at("S") == 4);
  CHECK(variants[5].at("BM") == 128);
  CHECK(variantLabel(r.axes, variants[5]) == "BM=128 S=5");
  CHECK(!parseSweep({"BM"}).badItem.empty());
  CHECK(!parseSweep({"BM=1,x"}).badItem.empty());
  CHECK(!parseSweep({"BM=1", "BM=2"}).badItem.empty());
}

TEST_CASE("calibration: Spearman rho, median error, and a fit that predicts a held-out size of a perturbed machine") {
  CHECK(spearmanRho({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1));
  CHECK(spearmanRho({1, 2, 3, 4}, {40, 30, 20, 10}) == doctest::Approx(-1));
  Accuracy acc = accuracy({1.1, 2.0, 2.7}, {1.0, 2.0, 3.0});
  CHECK(acc.medianAbsError == doctest::Approx(0.1));
  CHECK(acc.maxAbsError == doctest::Approx(0.1));

  // measurements generated by a machine whose HBM efficiency is 0.6 instead of the prior's 0.885
  Machine truth = machine("h200");
  truth.eff.hbmSimt = 0.6;
  auto a = analyse(readSample("vector_add.cake"));
  std::vector<CalibrationSample> samples;
  for (int64_t n : {1 << 22, 1 << 24, 1 << 26, 1 << 28}) {
    KernelWork w = count(*a, {{"N", n}});
    samples.push_back({"n", w.profile, w.occupancy, predictTime(w.profile, w.occupancy, truth).seconds});
  }
  CalibrationResult fit = calibrate(machine("h200"), samples);
  CHECK(fit.lossAfter < fit.lossBefore / 10);
  // several parameter sets can explain four points; what matters is that a held-out size is predicted
  KernelWork held = count(*a, {{"N", 3 << 26}});
  double want = predictTime(held.profile, held.occupancy, truth).seconds;
  CHECK(predictTime(held.profile, held.occupancy, fit.machine).seconds / want == doctest::Approx(1).epsilon(0.05));
}

TEST_CASE("waves: a persistent grid with fewer tiles than blocks runs as long as its busiest block") {
  Machine h200 = machine("h200");
  auto a = analyse(readSample("hopper_gemm_persistent.cake"), {{"BN", 256}});
  // 132 blocks in 66 clusters; 512 x 4096 has 2 x 16 = 32 tile pairs: 64 blocks compute one 128 x 256 tile
  // each, 68 compute none.  Averaging the grid's work over the SMs would predict half the time of one tile.
  KernelWork few = count(*a, {{"M", 512}, {"N", 4096}, {"K", 4096}});
  const double tile = 2.0 * 128 * 256 * 4096;
  CHECK(few.profile.count(Count::WgmmaFlops) == doctest::Approx(64 * tile));
  CHECK(few.profile.heaviestBlock[size_t(Count::WgmmaFlops)] == doctest::Approx(tile));
  // 1024 x 4096: 64 pairs, 128 blocks busy with one tile each - the same busiest block, the same time
  KernelWork full = count(*a, {{"M", 1024}, {"N", 4096}, {"K", 4096}});
  CHECK(full.profile.heaviestBlock[size_t(Count::WgmmaFlops)] == doctest::Approx(tile));
  Estimate eFew = predictTime(few.profile, few.occupancy, h200);
  Estimate eFull = predictTime(full.profile, full.occupancy, h200);
  CHECK(eFew.kernelSeconds == doctest::Approx(eFull.kernelSeconds).epsilon(0.05));
  // The latency term too: the chain averaged over the blocks is diluted by the idle ones, the busiest block's
  // chain is one tile's in both grids.
  CHECK(few.profile.chainInstructions < 0.6 * full.profile.chainInstructions);
  CHECK(few.profile.heaviestChainInstructions == doctest::Approx(full.profile.heaviestChainInstructions).epsilon(0.01));
  auto latency = [](const Estimate &e) {
    for (const ResourceTime &r : e.resources)
      if (r.name == "latency") return r.seconds;
    return 0.0;
  };
  CHECK(latency(eFew) == doctest::Approx(latency(eFull)).epsilon(0.05));
  // 67 pairs for 66 clusters: the busiest block does two tiles
  KernelWork over = count(*a, {{"M", 256 * 67}, {"N", 256}, {"K", 4096}});
  CHECK(over.profile.heaviestBlock[size_t(Count::WgmmaFlops)] == doctest::Approx(2 * tile));
  Estimate eOver = predictTime(over.profile, over.occupancy, h200);
  CHECK(eOver.kernelSeconds > 1.6 * eFull.kernelSeconds);
}
