// WorkCounter, control traces: sibling warps and other blocks that take a walked warp's control path reuse
// its counts instead of being walked again.
//
// Why: the counter walks one warp per role class and one block, but when a branch condition or loop bound
// read the warp index or a block coordinate, the other warps of the class and other blocks (every block of
// a small grid, else the corners) may take other paths (WorkCounter.h).  Usually they do not: a ragged
// GEMM's edge masks are all true on interior blocks and on every block of a tile-multiple shape, and a
// persistent GEMM's blocks differ only in how many tiles they take.
//
// How
//   * Every walk hashes its control path into traceHash_: each branch's taken lanes, the trip count of each
//     loop with non-constant bounds, and how each loop's iterations were counted (scaled, by class with the
//     class list, exactly, or first/last/middle).
//   * A sibling is first traced: walked with controlOnly_ set, which skips operations, stores and the bodies
//     of loops without control flow (found once, before any walk: controlLoops_), so it evaluates only the
//     lets, vars and conditions on its control path.  When its trace equals the walked warp's, the walked
//     warp's counts are reused; otherwise it is walked in full.
//   * As for the warps of a class whose control never reads the warp index, the addresses of a reused warp
//     are taken to coalesce and conflict as the walked warp's do.
#include "frontend/NameUses.h"
#include "cost/WorkCounterImpl.h"
#include "frontend/ConstEval.h"

namespace cake::cost::detail {

namespace {

// A compile-time constant (ConstEval's rules: literals, compile-time parameters, lets of constants): the
// same value in every warp, block and iteration.
bool isCompileTimeExpr(const Expr *e) { return !e || ConstEvaluator().evaluate(*e).ok(); }

// The declarations `e` reads.
void collectNames(const Expr *e, std::vector<const Decl *> &out) {
  forEachNameUse(e, [&](const NameExpr &n) {
    if (n.decl) out.push_back(n.decl);
  });
}

uint64_t mix64(uint64_t h, uint64_t x) {   // splitmix64 of the running hash and the next word
  uint64_t z = h ^ (x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

} // namespace

bool Counter::isIntegerRegisterAssign(const AssignStmt &s) {
  auto *name = dynCast<NameExpr>(s.target.get());
  return name && name->decl && name->decl->declKind == DeclKind::Var && s.target->type &&
         s.target->type->isInteger();
}

// What walking `s` can do to the control path: `control` when it holds a branch, a return, an integer
// var assignment or a loop with non-constant bounds; `returns` when it holds a return.  Records
// controlLoops_, boundLoops_, returnLoops_ and the integer vars each loop assigns (loopAssigned_).
ControlFacts Counter::findControl(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Block: {
    ControlFacts all;
    for (const auto &c : cast<BlockStmt>(&s)->stmts) {
      ControlFacts f = findControl(*c);
      all.control |= f.control;
      all.returns |= f.returns;
    }
    return all;
  }
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    ControlFacts f = findControl(*i->thenBody);
    if (i->elseBody) f.returns |= findControl(*i->elseBody).returns;
    return {true, f.returns};
  }
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    std::vector<const Decl *> outerAssigned;
    outerAssigned.swap(assignedVars_);
    ControlFacts body = findControl(*f->body);
    if (!assignedVars_.empty()) loopAssigned_[f] = assignedVars_;
    outerAssigned.insert(outerAssigned.end(), assignedVars_.begin(), assignedVars_.end());
    assignedVars_.swap(outerAssigned);
    if (body.control) controlLoops_.insert(f);
    if (body.returns) returnLoops_.insert(f);
    bool bounds = !isCompileTimeExpr(f->lower.get()) || !isCompileTimeExpr(f->upper.get()) ||
                  !isCompileTimeExpr(f->step.get());
    if (bounds) boundLoops_.insert(f);
    return {body.control || bounds, body.returns};
  }
  case StmtKind::Role: return findControl(*cast<RoleStmt>(&s)->body);
  case StmtKind::Elect: return findControl(*cast<ElectStmt>(&s)->body);
  case StmtKind::Return: return {true, true};
  case StmtKind::Assign: {
    bool reg = isIntegerRegisterAssign(*cast<AssignStmt>(&s));
    if (reg) assignedVars_.push_back(cast<NameExpr>(cast<AssignStmt>(&s)->target.get())->decl);
    return {reg, false};
  }
  default: return {};
  }
}

// A loop whose body has control flow: its iterations are one segment of the trace (hashed apart, then
// mixed in), so that a later trace can replay the segment instead of walking the loop again.  A segment
// is replayable when the loop's bounds are uniform and warp-independent, its body leaves no control state
// behind (leavesNoControlState), and no control value seen inside it so far read the warp index, an
// enclosing loop's variable or something the model could not follow: then every warp of this block,
// entering with the same active lanes and bounds, traces the same segment - and every warp of every block
// when no control value inside read a block coordinate either (replayKey).  (A control inside the loop
// first reached in this block is seen by the walk that stores the segment, before any replay.)
void Counter::walkControlLoop(const ForStmt &f, const LaneValue &lo, const LaneValue &hi, const LaneValue &step) {
  ControlLoop loop;
  loop.key = {&f, block_, active_, lo.scalar, hi.scalar, step.scalar};
  loop.keyable = lo.isUniform() && hi.isUniform() && step.isUniform() &&
                 !((lo.deps | hi.deps | step.deps) & (kDepWarp | kDepUnknown)) && leavesNoControlState(f);
  for (unsigned d = 0; d < loopDepth_ && d < kMaxTrackedLoopDepth; ++d) loop.outerLoopBits |= loopDepBit(d);
  loop.ownBit = loopDepBit(loopDepth_);
  if (controlOnly_ && sameInEveryWarp(loop)) {
    auto it = loopTraces_.find(replayKey(loop));
    if (it != loopTraces_.end()) {
      traceMix(it->second);
      return;
    }
  }
  uint64_t outer = traceHash_;
  traceHash_ = 0;
  loopControlDeps_.try_emplace(&f, 0u);
  controlLoopStack_.push_back(&loop);
  walkLoopIterations(f, lo, hi, step);
  controlLoopStack_.pop_back();
  uint64_t segment = traceHash_;
  traceHash_ = outer;
  traceMix(segment);
  if (sameInEveryWarp(loop)) loopTraces_[replayKey(loop)] = segment;
}

// The key a replayable loop's segment and classes are kept under: a loop whose controls read no block
// coordinate either is the same in every block, so its key leaves the block out; one whose controls do
// not read its own variable depends on its bounds only through its trip count.
LoopTraceKey Counter::replayKey(const ControlLoop &loop) const {
  LoopTraceKey key = loop.key;
  auto it = loopControlDeps_.find(loop.key.loop);
  if (it == loopControlDeps_.end()) return key;
  if (!(it->second & kDepBlockAny)) key.block = {-1, -1, -1};
  if (loop.ownBit && !(it->second & loop.ownBit) && key.step > 0) {
    key.hi = key.hi > key.lo ? (key.hi - key.lo + key.step - 1) / key.step : 0;
    key.lo = 0;
    key.step = 1;
  }
  return key;
}

// Whether every warp of this block entering `loop` with the same lanes takes the same path through it: the
// loop is keyable and no control value seen inside it read the warp index, an enclosing loop's variable
// or something the model could not follow.
bool Counter::sameInEveryWarp(const ControlLoop &loop) const {
  auto it = loopControlDeps_.find(loop.key.loop);
  return loop.keyable && it != loopControlDeps_.end() &&
         !(it->second & (kDepWarp | kDepUnknown | loop.outerLoopBits));
}

// Whether every iteration of `f` starts from the same control state and leaves it as it was: the body
// does not return, and the integer vars it assigns are read by no control value (a k loop's stage counter
// `it += 1` is not; it moves only addresses).
bool Counter::leavesNoControlState(const ForStmt &f) const {
  if (returnLoops_.count(&f)) return false;
  auto assigned = loopAssigned_.find(&f);
  if (assigned == loopAssigned_.end()) return true;
  for (const Decl *var : assigned->second)
    if (controlSlice_.count(var)) return false;
  return true;
}

void Counter::noteControlDeps(uint32_t deps) {
  for (const ControlLoop *loop : controlLoopStack_) loopControlDeps_[loop->key.loop] |= deps;
}

// The lets and vars a control value reads, directly or through other lets and vars: the only ones a trace
// evaluates.  `reads` gets the names of every control value, `defs` what each let / var is computed from.
void Counter::findControlSlice(const Stmt &s, std::vector<const Decl *> &reads,
                               std::multimap<const Decl *, const Expr *> &defs) {
  switch (s.kind) {
  case StmtKind::Block:
    for (const auto &c : cast<BlockStmt>(&s)->stmts) findControlSlice(*c, reads, defs);
    break;
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    collectNames(i->cond.get(), reads);
    findControlSlice(*i->thenBody, reads, defs);
    if (i->elseBody) findControlSlice(*i->elseBody, reads, defs);
    break;
  }
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    collectNames(f->lower.get(), reads);
    collectNames(f->upper.get(), reads);
    collectNames(f->step.get(), reads);
    findControlSlice(*f->body, reads, defs);
    break;
  }
  case StmtKind::Role: findControlSlice(*cast<RoleStmt>(&s)->body, reads, defs); break;
  case StmtKind::Elect: findControlSlice(*cast<ElectStmt>(&s)->body, reads, defs); break;
  case StmtKind::Let: {
    auto *let = cast<LetStmt>(&s);
    defs.emplace(static_cast<const Decl *>(let), let->init.get());
    break;
  }
  case StmtKind::Var: {
    auto *var = cast<VarStmt>(&s);
    defs.emplace(static_cast<const Decl *>(var), var->init.get());
    break;
  }
  case StmtKind::Assign: {
    auto *a = cast<AssignStmt>(&s);
    if (auto *name = dynCast<NameExpr>(a->target.get()); name && name->decl) defs.emplace(name->decl, a->value.get());
    break;
  }
  default: break;
  }
}

void Counter::buildControlSlice(const Stmt &body) {
  std::vector<const Decl *> pending;
  std::multimap<const Decl *, const Expr *> defs;
  findControlSlice(body, pending, defs);
  while (!pending.empty()) {
    const Decl *d = pending.back();
    pending.pop_back();
    if (!controlSlice_.insert(d).second) continue;
    auto [from, to] = defs.equal_range(d);
    for (auto it = from; it != to; ++it) collectNames(it->second, pending);
  }
}

void Counter::traceMix(uint64_t word) { traceHash_ = mix64(traceHash_, word); }

// A loop's trip count, per lane (its bounds' values themselves only move addresses, and what the body does
// with its variable is in the body's trace): blocks of a grid-stride loop with equal trip counts trace alike.
void Counter::traceTrips(const LaneValue &lo, const LaneValue &hi, const LaneValue &step) {
  if (!lo.known() || !hi.known() || !step.isUniform() || step.scalar <= 0) {
    traceMix(uint64_t{1} << 32);
    return;
  }
  auto trips = [&](unsigned lane) {
    int64_t span = hi.at(lane) - lo.at(lane);
    return static_cast<uint64_t>(span <= 0 ? 0 : (span + step.scalar - 1) / step.scalar);
  };
  if (lo.isUniform() && hi.isUniform()) {
    traceMix(trips(0));
    return;
  }
  for (unsigned lane = 0; lane < 32; ++lane) traceMix(trips(lane));
}

uint64_t Counter::traceWarp(int64_t warp) {
  startWarp(warp);
  controlOnly_ = true;
  if (kernel_.body) walkBlock(*kernel_.body);
  controlOnly_ = false;
  return traceHash_;
}

} // namespace cake::cost::detail
