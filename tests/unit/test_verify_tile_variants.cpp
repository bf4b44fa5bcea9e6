// Unit tests of the shared tile-count runs (SyncModel.h expandSyncTail, SyncSimulator.h simulateSyncVariants):
// a persistent, clustered pipeline expanded for T tiles as a variant of the T_max expansion must have exactly
// the events of its own full expansion, and the runs continued from the shared run must give exactly the
// outcomes (findings, messages, notes) of simulating each full expansion alone - for the correct kernel and
// for faulty ones whose findings appear at some tile counts only.
#include "sync_model_helpers.h"
#include "verify/SyncSimulator.h"

#include <sstream>

using namespace cake;

namespace {

const char *kPersistent = R"(target sm_90a;
kernel persistent<BM = 128, BN = 256, BK = 64, S = 4>(
    A: bf16[M, K] tma(box=[BM, BK], swizzle=128B) align(16),
    B: bf16[N, K] tma(box=[BN / 2, BK], swizzle=128B) align(16),
    C: bf16[M, N] align(16))
  requires(K % 8 == 0, N % 2 == 0)
  grid(num_sms / 2 * 2) threads(THREADS) cluster(2)
{
  shared a: bf16[S][BM, BK] swizzle(128B) align(1024);
  shared b: bf16[S][BN, BK] swizzle(128B) align(1024);
  mbarrier full[S] arrivals(1);
  mbarrier empty[S] arrivals(16);
  if tid.x == 0 {
    mbarrier.init full;
    mbarrier.init empty;
    fence.mbarrier_init;
  }
  cluster.sync;
  let rank = i32(cluster.rank);
  let pairs = cdiv(M, 2 * BM) * cdiv(N, BN);
  let k_tiles = cdiv(K, BK);
  let first = i32(block.x) / 2;
  let clusters = i32(grid_dim.x) / 2;
  role load = warpgroup(0) {
    if load.warp == 0 {
      elect {
        var it: i32 = 0;
        for p in first..pairs step clusters {
          for k in 0..k_tiles {
            let s = it % S;
            wait empty[s] parity(((it / S) & 1) ^ 1);
            arrive full[s] expect_tx((BM + BN) * BK * 2);
            tma.load a[s] <- A[0, k * BK] signal(full[s]);
            tma.load b[s][rank * (BN / 2) +: BN / 2, :] <- B[rank * (BN / 2), k * BK] signal(full[s]) multicast(3);
            it += PRODUCER_STEP;
          }
        }
      }
    }
  }
  role math[2] = warpgroups(1..3) {
    var acc: frag<wgmma_acc, f32, 64, BN, 16>;
    var it: i32 = 0;
    for p in first..pairs step clusters {
      acc = 0.0;
      for k in 0..k_tiles {
        let s = it % S;
        wait full[s] parity((it / S) & 1);
        wgmma.fence;
        wgmma acc += a[s][64 * math.index +: 64, :] * b[s].T;
        wgmma.commit;
        wgmma.wait 1;
        if k > RELEASE_FROM {
          elect {
            arrive empty[(it - 1) % S] cta(0);
            arrive empty[(it - 1) % S] cta(1);
          }
        }
        it += 1;
      }
      wgmma.wait 0;
      TAIL_RELEASE
    }
  }
  cluster.sync;
}
)";

const char *kTailRelease = R"(elect {
        arrive empty[(it - 1) % S] cta(0);
        arrive empty[(it - 1) % S] cta(1);
      })";

std::string persistent(std::string producerStep = "1", std::string releaseFrom = "0", std::string tail = kTailRelease,
                       std::string threads = "384") {
  std::string s = kPersistent;
  s.replace(s.find("THREADS"), 7, threads);
  s.replace(s.find("PRODUCER_STEP"), 13, producerStep);
  s.replace(s.find("RELEASE_FROM"), 12, releaseFrom);
  s.replace(s.find("TAIL_RELEASE"), 12, tail);
  return s;
}

struct Model : synctest::SyncFixture {
  InductionCounters counters;
  std::vector<const ForStmt *> tileLoops;

  explicit Model(const std::string &source) : SyncFixture(source) {
    counters = findInductionCounters(kernel(), *info);
    size_t counting = 0;   // the two `it` counters (acc is a var too, but not an integer)
    for (const auto &[decl, c] : counters.counters) counting += c.step != 0;
    REQUIRE(counting == 2);
    findTileLoops(*kernel().body);
    REQUIRE(tileLoops.size() == 2);
  }
  void findTileLoops(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block:
      for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) findTileLoops(*c);
      return;
    case StmtKind::Role: findTileLoops(*cast<RoleStmt>(&s)->body); return;
    case StmtKind::Elect: findTileLoops(*cast<ElectStmt>(&s)->body); return;
    case StmtKind::If: findTileLoops(*cast<IfStmt>(&s)->thenBody); return;
    case StmtKind::For:
      if (cast<ForStmt>(&s)->name == "p") tileLoops.push_back(cast<ForStmt>(&s));
      return;
    default: return;
    }
  }
  ConcreteValues values(int64_t kTiles, int64_t tiles) const {
    ConcreteValues v;
    for (const Ptr<ShapeVar> &sv : kernel().shapeVars) v.decls[sv.get()] = sv->name == "K" ? kTiles * 64 : 256;
    v.counters = &counters;
    for (const ForStmt *f : tileLoops) v.tripOverrides[f] = tiles;
    return v;
  }
};

std::string describe(const SimOutcome &o) {
  std::ostringstream out;
  for (const SimFinding &f : o.findings) {
    out << static_cast<int>(f.kind) << "@" << f.range.begin.offset << ":";
    for (const std::string &a : f.args) out << " [" << a << "]";
    for (const DiagNote &n : f.notes) out << " {" << n.range.begin.offset << " " << n.message << "}";
    out << " hint: " << f.hint << "\n";
  }
  return out.str();
}

bool sameEvent(const SyncEvent &a, const SyncEvent &b) {
  return a.kind == b.kind && a.range.begin.offset == b.range.begin.offset && a.barriers == b.barriers &&
         a.stages == b.stages && a.multiplicity == b.multiplicity && a.bytes == b.bytes && a.parity == b.parity &&
         a.count == b.count && a.where == b.where && a.lo == b.lo && a.hi == b.hi;
}

// Every tile count 0..maxTiles - 1 as a variant of maxTiles: events and outcomes equal to the plain ones.
// Returns how many tile counts have findings.
int checkVariants(Model &m, int64_t kTiles, int64_t maxTiles) {
  SyncProgram longest = expandSync(m.kernel(), *m.info, m.slots, m.agents, m.values(kTiles, maxTiles));
  REQUIRE_MESSAGE(longest.problems.empty(), longest.problems[0].what << ": " << longest.problems[0].reason);
  std::vector<SyncProgram> variants, plain;
  for (int64_t t = 0; t < maxTiles; ++t) {
    variants.push_back(expandSyncTail(m.kernel(), *m.info, m.slots, m.agents, m.values(kTiles, t), longest));
    plain.push_back(expandSync(m.kernel(), *m.info, m.slots, m.agents, m.values(kTiles, t)));
  }
  std::vector<const SyncProgram *> programs;
  for (int64_t t = 0; t < maxTiles; ++t) {
    const SyncProgram &v = variants[static_cast<size_t>(t)], &p = plain[static_cast<size_t>(t)];
    CHECK(v.problems.empty());
    CHECK(v.base == &longest);
    for (size_t a = 0; a < m.agents.size(); ++a) {
      REQUIRE_MESSAGE(v.size(a) == p.events[a].size(), "k_tiles " << kTiles << ", tiles " << t << ", agent " << a);
      size_t same = 0;
      for (size_t i = 0; i < p.events[a].size(); ++i) same += sameEvent(v.at(a, i), p.events[a][i]);
      CHECK_MESSAGE(same == p.events[a].size(), "k_tiles " << kTiles << ", tiles " << t << ", agent " << a);
    }
    programs.push_back(&v);
  }
  programs.push_back(&longest);
  std::vector<SimOutcome> shared = simulateSyncVariants(*m.info, m.sema.arch, m.slots, m.agents, programs);
  REQUIRE(shared.size() == static_cast<size_t>(maxTiles + 1));
  int withFindings = 0;
  for (int64_t t = 0; t <= maxTiles; ++t) {
    const SyncProgram &p = t < maxTiles ? plain[static_cast<size_t>(t)] : longest;
    SimOutcome alone = simulateSync(*m.info, m.sema.arch, m.slots, m.agents, p);
    CHECK_MESSAGE(describe(shared[static_cast<size_t>(t)]) == describe(alone), "k_tiles " << kTiles << ", tiles " << t);
    withFindings += !alone.findings.empty();
  }
  return withFindings;
}

} // namespace

TEST_CASE("Tile variants: the correct persistent pipeline, every tile count shares the longest run") {
  Model m(persistent());
  for (int64_t kTiles : {1, 2, 3, 5})
    CHECK(checkVariants(m, kTiles, 7) == 0);
}

TEST_CASE("Tile variants: warps outside the roles (no tile loop) do not limit the sharing") {
  Model m(persistent("1", "0", kTailRelease, "512"));
  REQUIRE(m.agents.size() == 8);   // load, math[0], math[1], the warps outside roles; per CTA
  CHECK(checkVariants(m, 2, 6) == 0);
  Model bad(persistent("2", "0", kTailRelease, "512"));
  CHECK(checkVariants(bad, 1, 6) > 0);
}

TEST_CASE("Tile variants: faulty pipelines get the findings of their own runs") {
  SUBCASE("producer counter advanced twice (deadlock after a few tiles)") {
    Model m(persistent("2"));
    CHECK(checkVariants(m, 1, 6) > 0);
    CHECK(checkVariants(m, 3, 5) > 0);
  }
  SUBCASE("tile-tail release missing") {
    Model m(persistent("1", "0", ""));
    CHECK(checkVariants(m, 2, 6) > 0);
  }
  SUBCASE("tile-tail release twice (extra arrivals)") {
    Model m(persistent("1", "0", std::string(kTailRelease) + "\n      " + kTailRelease));
    CHECK(checkVariants(m, 1, 6) > 0);
    CHECK(checkVariants(m, 3, 6) > 0);
  }
  SUBCASE("releases from the second k-tile on, and no tail release (deadlock)") {
    Model m(persistent("1", "1", ""));
    CHECK(checkVariants(m, 2, 5) > 0);
  }
}
