// WorkCounter: the sampling of blocks and warps, statements and control flow of the warp-level interpreter
// (algorithm in WorkCounter.h).  Expressions are in CountExprs.cpp, operation statements in CountOps.cpp.
#include "cost/WorkCounterImpl.h"

#include <algorithm>
#include <cmath>

namespace cake::cost {

namespace detail {

namespace {
constexpr int64_t kExactIterations = 16;   // loops whose body reads the loop variable: walked exactly up to this
constexpr int64_t kEdgeIterations = 6;     // ... longer ones: first and last 6, plus a scaled middle one
constexpr double kRolledLoopOverhead = 2;  // add + compare-and-branch per iteration of a rolled loop
constexpr int64_t kClassifiedBlocks = 256;  // grids up to this size: every block traced (else corners)
constexpr size_t kMaxWalkedBlocks = 32;     // blocks walked in full that later blocks are compared with
constexpr int64_t kWalkBudget = 2000000;   // statements per count; past it every loop is scaled (no hang on
                                           // deeply nested loops that read their variables)
} // namespace

// ------------------------------------------------------------------------------------------ Accum

void Accum::addScaled(const Accum &other, double factor, bool withChain) {
  for (size_t i = 0; i < kCountKinds; ++i) counts[i] += other.counts[i] * factor;
  if (roleCounts.size() < other.roleCounts.size()) roleCounts.resize(other.roleCounts.size(), Counts{});
  for (size_t r = 0; r < other.roleCounts.size(); ++r)
    for (size_t i = 0; i < kCountKinds; ++i) roleCounts[r][i] += other.roleCounts[r][i] * factor;
  if (siteBytes.size() < other.siteBytes.size()) siteBytes.resize(other.siteBytes.size());
  for (size_t i = 0; i < other.siteBytes.size(); ++i) siteBytes[i] += other.siteBytes[i] * factor;
  if (withChain) {
    chainInstr += other.chainInstr * factor;
    chainRounds += other.chainRounds * factor;
    chainAsync += other.chainAsync * factor;
    chainBarriers += other.chainBarriers * factor;
  }
}

void Accum::addScaledDifference(const Accum &to, const Accum &from, double factor) {
  auto addVector = [factor](std::vector<double> &into, const std::vector<double> &a, const std::vector<double> &b) {
    if (into.size() < a.size()) into.resize(a.size());
    for (size_t i = 0; i < a.size(); ++i) into[i] += (a[i] - (i < b.size() ? b[i] : 0)) * factor;
  };
  for (size_t i = 0; i < kCountKinds; ++i) counts[i] += (to.counts[i] - from.counts[i]) * factor;
  if (roleCounts.size() < to.roleCounts.size()) roleCounts.resize(to.roleCounts.size(), Counts{});
  for (size_t r = 0; r < to.roleCounts.size(); ++r)
    for (size_t i = 0; i < kCountKinds; ++i)
      roleCounts[r][i] += (to.roleCounts[r][i] - (r < from.roleCounts.size() ? from.roleCounts[r][i] : 0)) * factor;
  addVector(siteBytes, to.siteBytes, from.siteBytes);
  chainInstr += (to.chainInstr - from.chainInstr) * factor;
  chainRounds += (to.chainRounds - from.chainRounds) * factor;
  chainAsync += (to.chainAsync - from.chainAsync) * factor;
  chainBarriers += (to.chainBarriers - from.chainBarriers) * factor;
}

void Accum::clear(size_t roles) {
  counts.fill(0);
  roleCounts.assign(roles, Counts{});
  siteBytes.assign(siteBytes.size(), 0);
  chainInstr = chainRounds = chainAsync = chainBarriers = 0;
}

// ------------------------------------------------------------------------------------------ samples

Counter::Counter(const Kernel &kernel, const KernelInfo &info, const ShapeBinding &binding)
    : kernel_(kernel), info_(info), binding_(binding) {
  if (kernel.body) {
    findTmaBarriers(*kernel.body);
    findControl(*kernel.body);
    buildControlSlice(*kernel.body);
  }
}

// The mbarriers that tma.load operations signal: waiting on them waits for memory, not for a peer role.
void Counter::findTmaBarriers(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Block:
    for (const auto &c : cast<BlockStmt>(&s)->stmts) findTmaBarriers(*c);
    break;
  case StmtKind::Role: findTmaBarriers(*cast<RoleStmt>(&s)->body); break;
  case StmtKind::For: findTmaBarriers(*cast<ForStmt>(&s)->body); break;
  case StmtKind::Elect: findTmaBarriers(*cast<ElectStmt>(&s)->body); break;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    findTmaBarriers(*i->thenBody);
    if (i->elseBody) findTmaBarriers(*i->elseBody);
    break;
  }
  case StmtKind::Op: {
    auto *op = cast<OpStmt>(&s);
    if (!op->op || op->op->id != OpId::TmaLoad) break;
    for (const Clause &c : op->clauses) {
      if (c.name != "signal" || c.args.empty()) continue;
      const Expr *e = c.args[0].get();
      while (auto *ix = dynCast<IndexExpr>(e)) e = ix->base.get();
      if (auto *n = dynCast<NameExpr>(e); n && n->decl) tmaBarriers_.insert(n->decl);
    }
    break;
  }
  default: break;
  }
}

void Counter::note(const std::string &text) {
  if (noteSet_.insert(text).second && notes_.size() < 16) notes_.push_back(text);
}

void Counter::issue(double n) {
  acc_.counts[static_cast<size_t>(Count::WarpInstructions)] += n * localWeight_;
  acc_.roleCounts[roleSlot_][static_cast<size_t>(Count::WarpInstructions)] += n * localWeight_;
  acc_.chainInstr += n * localWeight_;
}

void Counter::startWarp(int64_t warp) {
  warp_ = warp;
  // env_ keeps its entries: a walk writes every name before it reads it (lets and vars at their
  // declarations, loop variables at each iteration; a trace reads only the control slice, which it writes),
  // so the previous warp's values are never read, and the table is not rebuilt for every warp
  assignedInts_.clear();
  active_ = 0xffffffffu;
  returned_ = 0;
  localWeight_ = 1;
  loopDepth_ = 0;
  controlDeps_ = 0;
  roleSlot_ = info_.roles.size();
  acc_.clear(info_.roles.size() + 1);
  roundHasLoad_ = false;
  roundBytes_ = maxRoundBytes_ = cpGroupBytes_ = cpMaxGroupBytes_ = 0;
  cpDepth_ = 1;
  traceHash_ = 0;
}

// Walks warp `warp` of the current block sample; folds its work into block_acc_.  Returns the dependence
// bits of every branch condition and loop bound it read.
uint32_t Counter::walkWarp(int64_t warp) {
  startWarp(warp);
  if (kernel_.body) walkBlock(*kernel_.body);
  if (controlDeps_ & (kDepBlockAny | kDepUnknown)) walkedTraces_.push_back({warp, traceHash_});
  closeRound();
  cpMaxGroupBytes_ = std::max(cpMaxGroupBytes_, cpGroupBytes_);
  block_acc_.addScaled(acc_, 1, false);
  if (acc_.chainInstr > block_acc_.chainInstr) {
    block_acc_.chainInstr = acc_.chainInstr;
    block_acc_.chainRounds = acc_.chainRounds;
    block_acc_.chainAsync = acc_.chainAsync;
    block_acc_.chainBarriers = acc_.chainBarriers;
  }
  blockInflight_ += std::max(maxRoundBytes_, cpMaxGroupBytes_ * static_cast<double>(cpDepth_));
  return controlDeps_;
}

uint32_t Counter::walkBlockSample(std::array<int64_t, 3> block) {
  block_ = block;
  block_acc_.clear(info_.roles.size() + 1);
  blockInflight_ = 0;
  walkedTraces_.clear();
  int64_t warps = std::max<int64_t>(1, info_.warps());
  // role class of each warp: the role containing it, or none
  std::vector<int> classOf(static_cast<size_t>(warps), -1);
  for (size_t r = 0; r < info_.roles.size(); ++r)
    for (int64_t w = info_.roles[r].firstWarp; w < info_.roles[r].endWarp && w < warps; ++w)
      if (w >= 0) classOf[static_cast<size_t>(w)] = static_cast<int>(r);
  uint32_t deps = 0;
  std::set<int> done;
  for (int64_t w = 0; w < warps; ++w) {
    int cls = classOf[static_cast<size_t>(w)];
    if (!done.insert(cls).second) continue;
    std::vector<int64_t> members;
    for (int64_t x = 0; x < warps; ++x)
      if (classOf[static_cast<size_t>(x)] == cls) members.push_back(x);
    double inflightBefore = blockInflight_;
    uint32_t d = walkWarp(w);
    deps |= d;
    if (members.size() == 1) continue;
    if (exhaustive_) {
      for (size_t i = 1; i < members.size(); ++i) deps |= walkWarp(members[i]);
    } else if (d & kDepWarp) {
      // the other warps may take other paths: those tracing the same path reuse this walk (ControlTrace.cpp)
      Accum walked = acc_;
      uint64_t walkedTrace = traceHash_;
      double walkedInflight = blockInflight_ - inflightBefore;
      for (size_t i = 1; i < members.size(); ++i) {
        if (traceWarp(members[i]) == walkedTrace) {
          if (controlDeps_ & (kDepBlockAny | kDepUnknown)) walkedTraces_.push_back({members[i], walkedTrace});
          deps |= controlDeps_;
          block_acc_.addScaled(walked, 1, false);
          blockInflight_ += walkedInflight;
        } else {
          deps |= walkWarp(members[i]);
        }
      }
    } else {
      double more = static_cast<double>(members.size() - 1);
      block_acc_.addScaled(acc_, more, false);
      blockInflight_ += (blockInflight_ - inflightBefore) * more;
    }
  }
  return deps;
}

WorkProfile Counter::run() {
  const std::array<int64_t, 3> &g = binding_.grid;
  size_t roles = info_.roles.size() + 1;
  grid_acc_.clear(roles);
  uint32_t deps = walkBlockSample({0, 0, 0});
  double blocks = static_cast<double>(binding_.blocks());
  // A walked block: its counts, and the traces of the warps it walked or traced (ControlTrace.cpp).
  struct WalkedBlock {
    Accum acc;
    double inflight;
    std::vector<std::pair<int64_t, uint64_t>> traces;
  };
  std::vector<WalkedBlock> walked{{block_acc_, blockInflight_, walkedTraces_}};
  // The other blocks standing for the grid, with the number of blocks each stands for; block 0 stands for
  // the rest.
  struct Sample { std::array<int64_t, 3> block; double weight; };
  std::vector<Sample> samples;
  double firstWeight = blocks;
  if (exhaustive_ || ((deps & kDepBlockAny) && binding_.blocks() <= kClassifiedBlocks)) {
    // every block (a small grid: persistent kernels' grid-stride tile loops, few tiles)
    for (int64_t z = 0; z < g[2]; ++z)
      for (int64_t y = 0; y < g[1]; ++y)
        for (int64_t x = 0; x < g[0]; ++x)
          if (x || y || z) samples.push_back({{x, y, z}, 1});
    firstWeight = 1;
  } else if (deps & kDepBlockAny) {
    // corner samples: (0,0) stands for the interior, (last x, 0) for the last column, (0, last y) for the
    // last row, (last, last) for the corner; z is taken as uniform.
    double gx = static_cast<double>(g[0]), gy = static_cast<double>(g[1]), gz = static_cast<double>(g[2]);
    firstWeight = (gx > 1 ? gx - 1 : 1) * (gy > 1 ? gy - 1 : 1) * gz;
    if (g[0] > 1) samples.push_back({{g[0] - 1, 0, 0}, (gy > 1 ? gy - 1 : 1) * gz});
    if (g[1] > 1) samples.push_back({{0, g[1] - 1, 0}, (gx > 1 ? gx - 1 : 1) * gz});
    if (g[0] > 1 && g[1] > 1) samples.push_back({{g[0] - 1, g[1] - 1, 0}, gz});
  }
  grid_acc_.addScaled(walked[0].acc, firstWeight, true);
  double inflightSum = walked[0].inflight * firstWeight;
  Counts heaviest = walked[0].acc.counts;
  std::array<double, 4> heaviestChain{walked[0].acc.chainInstr, walked[0].acc.chainRounds, walked[0].acc.chainAsync,
                                      walked[0].acc.chainBarriers};
  auto weigh = [&](const Accum &block) {
    for (size_t c = 0; c < heaviest.size(); ++c) heaviest[c] = std::max(heaviest[c], block.counts[c]);
    std::array<double, 4> chain{block.chainInstr, block.chainRounds, block.chainAsync, block.chainBarriers};
    for (size_t i = 0; i < chain.size(); ++i) heaviestChain[i] = std::max(heaviestChain[i], chain[i]);
  };
  for (const Sample &sample : samples) {
    // a block whose warps trace the paths of a block walked already counts as that block
    block_ = sample.block;
    const WalkedBlock *same = nullptr;
    std::map<int64_t, uint64_t> traces;   // this block's, traced once per warp
    auto traceOf = [&](int64_t warp) {
      auto it = traces.find(warp);
      return it != traces.end() ? it->second : traces[warp] = traceWarp(warp);
    };
    for (size_t i = 0; i < walked.size() && !same && !exhaustive_; ++i) {
      bool equal = true;
      for (const auto &[warp, trace] : walked[i].traces)
        if (!(equal = traceOf(warp) == trace)) break;
      if (equal) same = &walked[i];
    }
    if (!same) {
      walkBlockSample(sample.block);
      if (walked.size() < kMaxWalkedBlocks) walked.push_back({block_acc_, blockInflight_, walkedTraces_});
      grid_acc_.addScaled(block_acc_, sample.weight, true);
      inflightSum += blockInflight_ * sample.weight;
      weigh(block_acc_);
      continue;
    }
    grid_acc_.addScaled(same->acc, sample.weight, true);
    inflightSum += same->inflight * sample.weight;
    weigh(same->acc);
  }
  double inflight = inflightSum / blocks;

  WorkProfile p;
  p.kernel = kernel_.name;
  p.grid = g;
  p.blocks = binding_.blocks();
  p.threads = info_.threads;
  p.warps = info_.warps();
  p.cluster = info_.cluster;
  p.sharedBytes = info_.sharedBytes;
  p.totals = grid_acc_.counts;
  p.heaviestBlock = heaviest;
  for (const RoleInfo &r : info_.roles) p.roleNames.push_back(r.name);
  p.roleNames.push_back("(no role)");
  p.roleTotals = grid_acc_.roleCounts;
  p.roleTotals.resize(p.roleNames.size(), Counts{});
  for (const Counts &role : p.roleTotals) p.roleInstructions.push_back(role[static_cast<size_t>(Count::WarpInstructions)]);
  p.chainInstructions = grid_acc_.chainInstr / blocks;
  p.chainSyncLoadRounds = grid_acc_.chainRounds / blocks;
  p.chainAsyncWaits = grid_acc_.chainAsync / blocks;
  p.chainBarriers = grid_acc_.chainBarriers / blocks;
  p.heaviestChainInstructions = heaviestChain[0];
  p.heaviestChainSyncLoadRounds = heaviestChain[1];
  p.heaviestChainAsyncWaits = heaviestChain[2];
  p.heaviestChainBarriers = heaviestChain[3];
  // TMA ring: the bytes of every load signalling a barrier array, times its stages
  std::map<const Decl *, double> perBarrier;
  for (const auto &[site, entry] : tmaSites_) perBarrier[entry.first] += entry.second;
  for (const auto &[barrier, bytes] : perBarrier) {
    int64_t stages = 1;
    if (barrier)
      if (const MBarrierInfo *mb = info_.mbarrierOf(static_cast<const MBarrierStmt *>(barrier))) stages = mb->count;
    inflight += bytes * static_cast<double>(stages);
    pipelineDepth_ = std::max(pipelineDepth_, stages);
  }
  p.inflightBytesPerBlock = inflight;
  p.pipelineDepth = pipelineDepth_;
  for (size_t i = 0; i < sites_.size(); ++i) {
    SiteTraffic t;
    t.site = sites_[i].node;
    t.tensor = sites_[i].tensor;
    t.store = sites_[i].store;
    t.bytes = i < grid_acc_.siteBytes.size() ? grid_acc_.siteBytes[i] : 0;
    t.blockDeps = sites_[i].blockDeps;
    t.waveAddresses = sites_[i].waveAddresses;
    p.sites.push_back(t);
  }
  for (const auto &param : kernel_.params) {
    const Type *t = param->type;
    if (!t || !t->isTensor() || t->space != AddressSpace::Global) continue;
    TensorTraffic tt;
    tt.name = param->name;
    tt.decl = param.get();
    double elements = 1;
    for (const TensorDim &d : t->allDims()) elements *= static_cast<double>(dimValue(d).value_or(0));
    tt.sizeBytes = elements * static_cast<double>(t->element ? t->element->sizeInBytes().value_or(0) : 0);
    for (const SiteTraffic &s : p.sites)
      if (s.tensor == param.get()) (s.store ? tt.writeBytes : tt.readBytes) += s.bytes;
    p.tensors.push_back(tt);
  }
  p.notes = notes_;
  p.walkedStatements = walkedStmts_;
  p.tracedStatements = tracedStmts_;
  return p;
}

// ------------------------------------------------------------------------------------------ statements

void Counter::walkBlock(const BlockStmt &b) {
  for (const auto &s : b.stmts) {
    if (active_ == 0) return;
    walkStmt(*s);
  }
}

void Counter::walkStmt(const Stmt &s) {
  ++(controlOnly_ ? tracedStmts_ : walkedStmts_);
  switch (s.kind) {
  case StmtKind::Block: walkBlock(*cast<BlockStmt>(&s)); break;
  case StmtKind::Let: {
    auto *let = cast<LetStmt>(&s);
    const Decl *decl = let;
    if (controlOnly_) {
      if (!controlSlice_.count(let)) break;   // tracing: not on the control path
      // outside loops, a value that reads no warp index is the one an earlier warp of this block computed
      auto known = letBlock_.find(decl);
      if (loopDepth_ == 0 && known != letBlock_.end() && known->second == block_) break;
    }
    LaneValue value = let->init ? eval(*let->init) : LaneValue::unknown();
    if (loopDepth_ == 0 && !(value.deps & (kDepWarp | kDepUnknown))) letBlock_[decl] = block_;
    else letBlock_.erase(decl);
    env_[decl] = value;
    break;
  }
  case StmtKind::Var:
    if (!controlOnly_ || controlSlice_.count(cast<VarStmt>(&s))) walkVar(*cast<VarStmt>(&s));
    break;
  case StmtKind::Shared: case StmtKind::MBarrier: case StmtKind::Barrier: break;
  case StmtKind::Role: walkRole(*cast<RoleStmt>(&s)); break;
  case StmtKind::For: walkFor(*cast<ForStmt>(&s)); break;
  case StmtKind::If: walkIf(*cast<IfStmt>(&s)); break;
  case StmtKind::Elect: {
    issue(1);   // elect.sync
    uint32_t saved = active_;
    active_ = saved & (~saved + 1);   // the lowest active lane
    walkBlock(*cast<ElectStmt>(&s)->body);
    active_ = saved & ~returned_;
    break;
  }
  case StmtKind::Return:
    issue(1);
    returned_ |= active_;
    active_ = 0;
    break;
  case StmtKind::Assign: {
    auto *a = cast<AssignStmt>(&s);
    if (!controlOnly_ || (isIntegerRegisterAssign(*a) && controlSlice_.count(cast<NameExpr>(a->target.get())->decl)))
      walkAssign(*a);
    break;
  }
  case StmtKind::Op:
    if (!controlOnly_) walkOp(*cast<OpStmt>(&s));
    break;
  case StmtKind::Call: CAKE_INTERNAL_ERROR("a call statement reached the cost model (inlining replaces it)");
  }
}

void Counter::walkVar(const VarStmt &s) {
  const Decl *decl = static_cast<const Decl *>(&s);
  LaneValue value = s.init ? eval(*s.init) : LaneValue::unknown();
  // initialising registers costs one move per 32-bit register (fragments and arrays included)
  if (s.init && s.type) {
    std::optional<int64_t> bytes = s.type->sizeInBytes();
    if (s.type->isTensor() && s.type->element && s.type->element->isFragment()) {
      auto n = s.type->numElements();
      bytes = n ? std::optional<int64_t>(*n * s.type->element->fragRegistersPerThread() * 4) : std::nullopt;
    }
    if (bytes && !value.known()) issue(static_cast<double>((*bytes + 3) / 4));
    else if (bytes && s.type->isFragment()) issue(static_cast<double>((*bytes + 3) / 4));
  }
  env_[decl] = value;
}

void Counter::walkRole(const RoleStmt &s) {
  const RoleInfo *role = info_.roleOf(&s);
  if (!role || warp_ < role->firstWarp || warp_ >= role->endWarp) return;
  size_t savedSlot = roleSlot_;
  roleSlot_ = static_cast<size_t>(role - info_.roles.data());
  walkBlock(*s.body);
  roleSlot_ = savedSlot;
}

void Counter::invalidateAssignedSince(size_t mark) {
  for (size_t i = mark; i < assignedInts_.size(); ++i) {
    auto it = env_.find(assignedInts_[i]);
    if (it != env_.end()) it->second = LaneValue::unknown(it->second.deps);
  }
}

void Counter::walkIf(const IfStmt &s) {
  LaneValue cond = eval(*s.cond);
  controlDeps_ |= cond.deps;
  if (!controlLoopStack_.empty()) noteControlDeps(cond.deps);
  if (!cond.isConstant()) issue(1);   // the branch
  uint32_t saved = active_;
  traceMix(reinterpret_cast<uintptr_t>(&s));
  traceMix(cond.known() ? cond.truthMask(saved) : uint64_t{1} << 32);
  if (!cond.known()) {
    note("a branch condition the model cannot evaluate was counted as taken half of the time");
    size_t mark = assignedInts_.size();
    double w = localWeight_;
    localWeight_ = w * 0.5;
    walkBlock(*s.thenBody);
    active_ = saved & ~returned_;
    if (s.elseBody && active_) walkStmt(*s.elseBody);
    active_ = saved & ~returned_;
    localWeight_ = w;
    invalidateAssignedSince(mark);
    return;
  }
  uint32_t taken = cond.truthMask(saved);
  uint32_t notTaken = saved & ~taken;
  if (taken) {
    active_ = taken;
    walkBlock(*s.thenBody);
  }
  if (notTaken && s.elseBody) {
    active_ = notTaken & ~returned_;
    if (active_) walkStmt(*s.elseBody);
  }
  active_ = saved & ~returned_;
}

void Counter::closeRound() {
  if (roundHasLoad_) acc_.chainRounds += localWeight_;
  maxRoundBytes_ = std::max(maxRoundBytes_, roundBytes_);
  roundHasLoad_ = false;
  roundBytes_ = 0;
  ++roundsClosed_;
}

WalkMark Counter::markWalk() const { return {acc_, roundBytes_, cpGroupBytes_, roundsClosed_, cpCommits_}; }

void Counter::rewindTo(const WalkMark &m) {
  acc_ = m.acc;
  roundBytes_ = m.roundBytes;
  cpGroupBytes_ = m.cpGroupBytes;
  roundsClosed_ = m.roundsClosed;
  cpCommits_ = m.cpCommits;
}

// The work walked from `from` to `to` happens `extra` more times.  Bytes issued into a load round or a
// cp.async group that is still open (no round closed, no group committed since `from`) are in flight
// together, so they scale too (the iterations of an unrolled loop).
void Counter::scaleWalk(const WalkMark &from, const WalkMark &to, double extra) {
  acc_.addScaledDifference(to.acc, from.acc, extra);
  if (roundsClosed_ == from.roundsClosed) roundBytes_ += (to.roundBytes - from.roundBytes) * extra;
  if (cpCommits_ == from.cpCommits) cpGroupBytes_ += (to.cpGroupBytes - from.cpGroupBytes) * extra;
}

// One iteration: bind the loop variable, walk the body, account the loop overhead.
void Counter::iterate(const ForStmt &f, const LaneValue &value, uint32_t mask) {
  env_[static_cast<const Decl *>(&f)] = value;
  active_ = mask & ~returned_;
  if (!active_) return;
  ++loopDepth_;
  walkBlock(*f.body);
  --loopDepth_;
  if (!f.unroll) {
    // unroll(N): the same work, one increment-and-branch per N iterations.  Rounds still close every
    // iteration (the model gives no credit for overlap between the copies of one trip).
    issue(kRolledLoopOverhead / static_cast<double>(std::max<int64_t>(1, f.unrollCount)));
    closeRound();
  }
}

void Counter::runIterations(const ForStmt &f, int64_t lo, int64_t step, int64_t trips, uint32_t loDeps) {
  uint32_t mask = active_;
  uint32_t bit = loopDepBit(loopDepth_);
  // a loop whose bounds depend on the block (a grid-stride tile loop): addresses reading its variable get
  // their wave footprint probed (WaveFootprint.cpp)
  struct RestoreBits {
    uint32_t &bits, saved;
    ~RestoreBits() { bits = saved; }
  } restoreBits{blockLoopBits_, blockLoopBits_};
  if (loDeps & kDepBlockAny) blockLoopBits_ |= bit;
  auto valueAt = [&](int64_t i) { return loopValueAt(lo, step, i, bit, loDeps); };
  // the first iteration, probing whether the body's control flow reads the loop variable
  uint32_t outerDeps = controlDeps_;
  controlDeps_ = 0;
  size_t mark = assignedInts_.size();
  // an integer var the body assigns changes from iteration to iteration, from the first one on
  if (auto assigned = loopAssigned_.find(&f); assigned != loopAssigned_.end())
    for (const Decl *var : assigned->second)
      if (auto it = env_.find(var); it != env_.end()) it->second.deps |= bit | (bit == 0 ? kDepUnknown : 0u);
  WalkMark before = markWalk();
  iterate(f, valueAt(0), mask);
  uint32_t bodyDeps = controlDeps_;
  uint32_t innerBits = 0;
  for (unsigned d = loopDepth_; d < kMaxTrackedLoopDepth; ++d) innerBits |= loopDepBit(d);
  controlDeps_ = outerDeps | (bodyDeps & ~innerBits);
  if (trips == 1) return;
  if (exhaustive_) {
    for (int64_t i = 1; i < trips && (mask & ~returned_); ++i) iterate(f, valueAt(i), mask);
    return;
  }
  auto scaleLast = [&](const WalkMark &base, double extra) { scaleWalk(base, markWalk(), extra); };
  bool overBudget = walkedStmts_ + tracedStmts_ > kWalkBudget;
  bool traced = controlLoops_.count(&f) != 0;   // tracing walks this loop's body too (ControlTrace.cpp)
  if (traced) traceMix(overBudget);
  if (overBudget) note("the kernel's loop nest is too large to walk: later loops were scaled from one iteration");
  if (overBudget || (bit != 0 && !(bodyDeps & bit) && !(bodyDeps & kDepUnknown))) {
    scaleLast(before, static_cast<double>(trips - 1));
    invalidateAssignedSince(mark);
    return;
  }
  if (trips > kExactIterations && walkByClass(f, lo, step, trips, loDeps, mask, before)) {
    invalidateAssignedSince(mark);
    return;
  }
  if (traced) traceMix(trips);   // walked iteration by iteration
  if (trips <= kExactIterations) {
    for (int64_t i = 1; i < trips && (mask & ~returned_); ++i) iterate(f, valueAt(i), mask);
    return;
  }
  note("a long loop branching on its variable was counted from its first and last 6 iterations and a middle one");
  for (int64_t i = 1; i < kEdgeIterations && (mask & ~returned_); ++i) iterate(f, valueAt(i), mask);
  WalkMark mid = markWalk();
  iterate(f, valueAt(trips / 2), mask);
  scaleLast(mid, static_cast<double>(trips - 2 * kEdgeIterations - 1));
  for (int64_t i = trips - kEdgeIterations; i < trips && (mask & ~returned_); ++i) iterate(f, valueAt(i), mask);
  invalidateAssignedSince(mark);
}

void Counter::walkFor(const ForStmt &f) {
  // tracing: constant bounds (no dependence to note) and no control inside
  if (controlOnly_ && !controlLoops_.count(&f) && !boundLoops_.count(&f)) return;
  LaneValue lo = eval(*f.lower);
  LaneValue hi = eval(*f.upper);
  LaneValue step = f.step ? eval(*f.step) : LaneValue::uniform(1);
  controlDeps_ |= lo.deps | hi.deps | step.deps;
  if (!controlLoopStack_.empty()) noteControlDeps(lo.deps | hi.deps | step.deps);
  if (boundLoops_.count(&f)) {
    traceMix(reinterpret_cast<uintptr_t>(&f));
    traceTrips(lo, hi, step);
  }
  if (!controlLoops_.count(&f)) {
    if (!controlOnly_) walkLoopIterations(f, lo, hi, step);   // tracing: nothing on the control path inside
    return;
  }
  walkControlLoop(f, lo, hi, step);
}

void Counter::walkLoopIterations(const ForStmt &f, const LaneValue &lo, const LaneValue &hi, const LaneValue &step) {
  uint32_t saved = active_;
  if (!f.unroll) closeRound();   // loads issued before a rolled loop are waited for by then at the latest
  if (!step.isUniform() || step.scalar <= 0 || !lo.known() || !hi.known()) {
    note("a loop with a trip count the model cannot compute was counted as running once");
    iterate(f, lo.known() ? lo : LaneValue::unknown(), saved);
    active_ = saved & ~returned_;
    return;
  }
  if (lo.isUniform() && hi.isUniform()) {
    int64_t span = hi.scalar - lo.scalar;
    int64_t trips = span <= 0 ? 0 : (span + step.scalar - 1) / step.scalar;
    if (trips > 0) runIterations(f, lo.scalar, step.scalar, trips, lo.deps | hi.deps);
    active_ = saved & ~returned_;
    return;
  }
  // per-lane bounds: the warp runs the longest lane's trip count, lanes drop out as they finish
  std::array<int64_t, 32> trips{};
  int64_t maxTrips = 0;
  double sumTrips = 0;
  for (unsigned l = 0; l < 32; ++l) {
    if (!(saved >> l & 1u)) continue;
    int64_t span = hi.at(l) - lo.at(l);
    trips[l] = span <= 0 ? 0 : (span + step.scalar - 1) / step.scalar;
    maxTrips = std::max(maxTrips, trips[l]);
    sumTrips += static_cast<double>(trips[l]);
  }
  if (maxTrips <= kExactIterations || exhaustive_) {
    for (int64_t i = 0; i < maxTrips; ++i) {
      uint32_t mask = 0;
      LaneValue v;
      v.kind = LaneValue::Kind::Varying;
      v.deps = lo.deps | hi.deps | loopDepBit(loopDepth_);
      for (unsigned l = 0; l < 32; ++l) {
        v.lanes[l] = lo.at(l) + i * step.scalar;
        if ((saved >> l & 1u) && trips[l] > i) mask |= 1u << l;
      }
      iterate(f, v, mask);
    }
  } else {
    note("a long loop with per-lane bounds was counted from its average trip count");
    double w = localWeight_;
    localWeight_ = w * sumTrips / std::max(1, __builtin_popcount(saved));
    iterate(f, lo, saved);
    localWeight_ = w;
  }
  active_ = saved & ~returned_;
}

void Counter::walkAssign(const AssignStmt &s) {
  ResolvedAccess target = resolve(*s.target);
  LaneValue value = eval(*s.value);
  const Type *tt = s.target->type;
  if (target.memory) {
    int64_t bytes = tt ? tt->sizeInBytes().value_or(0) : 0;
    if (s.op != AssignOp::Set) evalLoad(*s.target);   // read-modify-write
    countStore(s, target, bytes);
    return;
  }
  // a register: integers are tracked, everything else costs its arithmetic
  bool isInt = tt && tt->isInteger();
  if (s.op != AssignOp::Set) {
    if (isInt) {
      issue(1);
    } else {
      double width = tt && tt->isFragment() ? static_cast<double>(tt->fragElementsPerThread())
                                            : static_cast<double>(tt ? tt->vectorWidth() : 1);
      issue(width);
      fp32(width * lanes(), width * lanes());
    }
  }
  auto *name = dynCast<NameExpr>(s.target.get());
  if (!isInt || !name || !name->decl) return;
  const Decl *decl = name->decl;
  LaneValue old = env_.count(decl) ? env_[decl] : LaneValue::unknown();
  LaneValue result = value;
  if (s.op != AssignOp::Set) {
    static const IntOp ops[] = {IntOp::Add, IntOp::Add, IntOp::Sub, IntOp::Mul, IntOp::Div, IntOp::Rem,
                                IntOp::And, IntOp::Or,  IntOp::Xor, IntOp::Shl, IntOp::Shr};
    result = applyIntOp(ops[static_cast<size_t>(s.op)], old, value);
  }
  env_[decl] = mergeUnderMask(old, result, active_);
  assignedInts_.push_back(decl);
}

} // namespace detail

WorkProfile countWork(const Kernel &kernel, const KernelInfo &info, const ShapeBinding &binding, CountMode mode) {
  detail::Counter counter(kernel, info, binding);
  counter.exhaustive_ = mode == CountMode::Exhaustive;
  return counter.run();
}

} // namespace cake::cost

namespace cake::cost {

const char *countName(Count c) {
  switch (c) {
  case Count::WarpInstructions: return "warp_instructions";
  case Count::Fp32LaneOps: return "fp32_lane_ops";
  case Count::Fp32Flops: return "fp32_flops";
  case Count::SfuLaneOps: return "sfu_lane_ops";
  case Count::MmaSyncFlops: return "mma_sync_flops";
  case Count::WgmmaFlops: return "wgmma_flops";
  case Count::SimtLoadBytes: return "ld_global_bytes";
  case Count::CpAsyncBytes: return "cp_async_bytes";
  case Count::TmaLoadBytes: return "tma_load_bytes";
  case Count::SimtStoreBytes: return "st_global_bytes";
  case Count::TmaStoreBytes: return "tma_store_bytes";
  case Count::L2LoadBytes: return "l2_load_bytes";
  case Count::L2StoreBytes: return "l2_store_bytes";
  case Count::SharedLoadBytes: return "shared_load_bytes";
  case Count::SharedStoreBytes: return "shared_store_bytes";
  case Count::SharedWavefronts: return "shared_wavefronts";
  case Count::WgmmaSharedBytes: return "wgmma_shared_bytes";
  case Count::BlockBarriers: return "barriers";
  case Count::MulticastSavedBytes: return "multicast_saved_bytes";
  case Count::WarpSyncs: return "warp_syncs";
  case Count::AtomicLaneOps: return "atomic_lane_ops";
  case Count::AtomicSerialUpdates: return "atomic_serial_updates";
  case Count::Count_: break;
  }
  return "?";
}

} // namespace cake::cost
