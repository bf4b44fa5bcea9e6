// Unit tests of the synchronisation model and simulator (src/verify/SyncModel.cpp, SyncSimulator.cpp):
// agents per role instance, event multiplicities (elect, thread conditions, returns), concrete expansion
// of a pipelined loop, problems for values the model cannot evaluate, and the simulator's verdicts on a
// correct pipeline and on single faults.
#include "sync_model_helpers.h"
#include "verify/SyncSimulator.h"

#include <algorithm>

using namespace cake;

namespace {

const char *kPipeline = R"(target sm_90a;
kernel pipe<BM = 64, BN = 64, BK = 64, S = 2>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN, BK], swizzle=128B) align(16))
  requires(M % BM == 0, N % BN == 0, K % BK == 0)
  grid(M / BM, N / BN) threads(384)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(8);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  syncthreads;
  let k_tiles = K / BK;
  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        for k in 0..k_tiles {
          let s = k % S;
          wait empty[s] parity(WAIT_PARITY);
          arrive full[s] expect_tx(TX_BYTES);
          tma.load a[s] <- A[i32(block.x) * BM, k * BK] signal(full[s]);
          tma.load b[s] <- B[i32(block.y) * BN, k * BK] signal(full[s]);
        }
      }
    }
  }
  role math[2] = warpgroups(1..3) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16> = 0.0;
    for k in 0..k_tiles {
      let s = k % S;
      wait full[s] parity((k / S) & 1);
      wgmma.fence;
      wgmma acc += a[s] * b[s].T;
      wgmma.commit;
      wgmma.wait 0;
      elect {
        arrive empty[s];
      }
    }
  }
}
)";

std::string pipeline(std::string parity = "((k / S) & 1) ^ 1", std::string bytes = "(BM + BN) * BK * 2") {
  std::string s = kPipeline;
  s.replace(s.find("WAIT_PARITY"), 11, parity);
  s.replace(s.find("TX_BYTES"), 8, bytes);
  return s;
}

struct Model : synctest::SyncFixture {
  using SyncFixture::SyncFixture;
  // A program where K has the given value (shape variables by name).
  SyncProgram expand(int64_t K) {
    ConcreteValues v;
    for (const Ptr<ShapeVar> &sv : kernel().shapeVars) v.decls[sv.get()] = sv->name == "K" ? K : 64;
    return expandSync(kernel(), *info, slots, agents, v);
  }
  int agentIndex(const std::string &name) const {
    for (size_t i = 0; i < agents.size(); ++i)
      if (agents[i].name == name) return static_cast<int>(i);
    return -1;
  }
};

size_t countKind(const std::vector<SyncEvent> &events, EventKind kind) {
  return static_cast<size_t>(std::count_if(events.begin(), events.end(), [&](const SyncEvent &e) { return e.kind == kind; }));
}

} // namespace

TEST_CASE("SyncModel: one agent per role instance; slots per barrier and stage") {
  Model m(pipeline());
  REQUIRE(m.agents.size() == 3);
  CHECK(m.agents[0].name == "load");
  CHECK(m.agents[1].name == "math[0]");
  CHECK(m.agents[2].name == "math[1]");
  CHECK(m.agents[1].threads.size() == 128);
  CHECK(m.agents[2].threads.front() == 256);
  CHECK(m.slots.barriers.size() == 4);
  CHECK(m.slots.stages.size() == 4);
  CHECK(m.slots.barriers[1].name() == "full[1]");
}

TEST_CASE("SyncModel: the pipelined loop expands with concrete stages, parities, bytes and multiplicities") {
  Model m(pipeline());
  SyncProgram p = m.expand(5 * 64);   // 5 k-tiles
  CHECK(p.problems.empty());
  const std::vector<SyncEvent> &load = p.events[static_cast<size_t>(m.agentIndex("load"))];
  // init (thread 0 is in the load warpgroup), fence, syncthreads, then 5 x (wait, arrive, 2 copies).
  CHECK(countKind(load, EventKind::Init) == 2);
  CHECK(countKind(load, EventKind::BlockSync) == 1);
  CHECK(countKind(load, EventKind::Wait) == 5);
  CHECK(countKind(load, EventKind::TmaLoad) == 10);
  auto arrive = std::find_if(load.begin(), load.end(), [](const SyncEvent &e) { return e.kind == EventKind::Arrive; });
  REQUIRE(arrive != load.end());
  CHECK(arrive->multiplicity == 1);              // elect inside `if load.warp == 0`: one thread
  CHECK(arrive->bytes == (64 + 64) * 64 * 2);
  auto wait3 = std::find_if(load.begin(), load.end(), [](const SyncEvent &e) {
    return e.kind == EventKind::Wait && e.where == "k = 3";
  });
  REQUIRE(wait3 != load.end());
  CHECK(m.slots.barriers[static_cast<size_t>(wait3->barriers[0])].name() == "empty[1]");
  CHECK(wait3->parity == 0);                     // ((3 / 2) & 1) ^ 1
  const std::vector<SyncEvent> &math = p.events[static_cast<size_t>(m.agentIndex("math[1]"))];
  CHECK(countKind(math, EventKind::Init) == 0);
  auto release = std::find_if(math.begin(), math.end(), [](const SyncEvent &e) { return e.kind == EventKind::Arrive; });
  REQUIRE(release != math.end());
  CHECK(release->multiplicity == 4);             // one elected lane per warp of the warpgroup
  CHECK(countKind(math, EventKind::ReadAsync) == 10);
}

TEST_CASE("SyncModel: a return removes the threads that reach it") {
  std::string src = pipeline();
  src.replace(src.find("      elect {\n        arrive empty[s];"), 0, "      if math.warp == 3 {\n        return;\n      }\n");
  Model m(src);
  SyncProgram p = m.expand(64);
  const std::vector<SyncEvent> &math = p.events[static_cast<size_t>(m.agentIndex("math[0]"))];
  auto release = std::find_if(math.begin(), math.end(), [](const SyncEvent &e) { return e.kind == EventKind::Arrive; });
  REQUIRE(release != math.end());
  CHECK(release->multiplicity == 3);
}

TEST_CASE("SyncModel: values that cannot be evaluated become problems") {
  std::string src = pipeline();
  src.replace(src.find("let k_tiles = K / BK;"), 21, "var k_tiles: i32 = K / BK;");
  Model m(src);
  SyncProgram p = m.expand(128);
  REQUIRE_FALSE(p.problems.empty());
  CHECK(p.problems[0].reason.find("mutable variable 'k_tiles'") != std::string::npos);
}

TEST_CASE("SyncSimulator: the correct pipeline has no findings for any small trip count") {
  Model m(pipeline());
  for (int64_t tiles = 1; tiles <= 9; ++tiles) {
    SimOutcome out = simulateSync(*m.info, m.sema.arch, m.slots, m.agents, m.expand(tiles * 64));
    CHECK_MESSAGE(out.findings.empty(), "tiles = " << tiles << ": " << (out.findings.empty() ? "" : out.findings[0].args[0]));
    CHECK(out.phasesCompleted >= static_cast<unsigned>(2 * tiles));
  }
}

TEST_CASE("SyncSimulator: single faults are found with the right kind") {
  {
    Model m(pipeline("(k / S) & 1"));   // producer's first wait needs a release that never comes
    SimOutcome out = simulateSync(*m.info, m.sema.arch, m.slots, m.agents, m.expand(64));
    REQUIRE(out.findings.size() == 1);
    CHECK(out.findings[0].kind == DiagKind::SyncDeadlock);
  }
  {
    Model m(pipeline("((k / S) & 1) ^ 1", "BM * BK * 2"));   // expect_tx misses the B tile
    SimOutcome out = simulateSync(*m.info, m.sema.arch, m.slots, m.agents, m.expand(64));
    REQUIRE(out.findings.size() == 1);
    CHECK(out.findings[0].kind == DiagKind::MbarrierExpectTx);
    CHECK(out.findings[0].args[2] == "8192");
    CHECK(out.findings[0].args[3] == "16384");
  }
  {
    std::string src = pipeline();
    src.replace(src.find("mbarrier empty[S] arrivals(8);"), 30, "mbarrier empty[S] arrivals(4);");
    Model m(src);   // one consumer's release completes the phase: the producer laps the other
    bool lap = false;
    for (int64_t tiles = 1; tiles <= 6 && !lap; ++tiles) {
      SimOutcome out = simulateSync(*m.info, m.sema.arch, m.slots, m.agents, m.expand(tiles * 64));
      for (const SimFinding &f : out.findings) lap |= f.kind == DiagKind::MbarrierLap || f.kind == DiagKind::StageOverwritten;
    }
    CHECK(lap);
  }
}
