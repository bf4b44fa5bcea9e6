// SyncModel: the expansion of the typed AST into per-agent event lists (SyncModel.h): the walker runs each agent's
// statements with concrete values (SyncEvaluator.h), unrolling loops and resolving barriers and stages to slots
// (SyncSlots.cpp); expandSync / expandSyncTail drive it.
#include "verify/SyncModel.h"

#include "verify/NamedBarrierOperand.h"
#include "verify/RootDecl.h"
#include "verify/SyncEvaluator.h"
#include "verify/SyncStatements.h"

#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <algorithm>
#include <unordered_map>

namespace cake {

namespace {

using namespace sync_detail;   // Evaluator, ThreadPoint (SyncEvaluator.h), the statement predicates (SyncStatements.h)

constexpr size_t kMaxEventsPerAgent = 200000;

// ---------------------------------------------------------------- the walker
class Walker {
public:
  Walker(const KernelInfo &info, const SlotTable &slots, const SyncAgent &agent, const ConcreteValues &values,
         std::vector<SyncEvent> &out, std::vector<SyncProblem> &problems,
         std::vector<SyncProgram::TileStart> &tileStarts, const std::vector<SyncProgram::TileStart> *resume)
      : info_(info), slots_(slots), agent_(agent), values_(values), out_(out), problems_(problems),
        tileStarts_(tileStarts), resume_(resume), silent_(resume != nullptr), eval_(info, values, loops_, counters_) {}

  // A tail walk (resume given): the tile at which it continued from the longer program's state; nullopt
  // when it reached no tile loop.  `mismatch`: it found a tile loop the longer program has no state for.
  std::optional<size_t> split() const { return split_; }
  bool mismatch() const { return mismatch_; }

  using Active = std::vector<int64_t>;   // tid.x of the active threads, ascending

  Active walk(const Stmt &s, Active active) {
    if (active.empty() || overflow_) return active;
    switch (s.kind) {
    case StmtKind::Block:
      for (const Ptr<Stmt> &c : cast<BlockStmt>(&s)->stmts) active = walk(*c, std::move(active));
      return active;
    case StmtKind::Role: {
      auto *r = cast<RoleStmt>(&s);
      if (!agent_.role || agent_.role->decl != r || !r->body) return active;
      return walk(*r->body, std::move(active));
    }
    case StmtKind::Let: {
      auto *l = cast<LetStmt>(&s);
      emitReads(l->init.get(), active, s.range);
      return active;
    }
    case StmtKind::Var: {
      auto *v = cast<VarStmt>(&s);
      emitReads(v->init.get(), active, s.range);
      if (const InductionCounter *c = values_.counters ? values_.counters->find(v) : nullptr) {
        if (!counters_.count(v)) counterOrder_.push_back(v);
        counters_[v] = c->init;
        counterThreads_[v] = active;
      }
      return active;
    }
    case StmtKind::Assign: {
      auto *a = cast<AssignStmt>(&s);
      emitReads(a->value.get(), active, s.range);
      if (const InductionCounter *c = values_.counters ? values_.counters->find(rootDecl(a->target.get())) : nullptr;
          c && c->update == a) {
        auto it = counters_.find(c->decl);
        if (it == counters_.end()) return active;
        if (counterThreads_[c->decl] != active) {
          // Some threads that declared the counter left (return): its value differs between threads.
          counters_.erase(it);
          problem(a->range, "the counter '" + c->decl->name + "'",
                  "it is incremented by only some of the threads of " + agent_.name);
          return active;
        }
        it->second += c->step;
        return active;
      }
      if (isSharedRef(a->target.get())) {
        if (a->op != AssignOp::Set) emitSharedAccess(EventKind::Read, a->target.get(), active, s.range, nullptr);
        emitSharedAccess(EventKind::Write, a->target.get(), active, s.range, nullptr);
      }
      return active;
    }
    case StmtKind::Return: return {};
    case StmtKind::Elect: {
      auto *e = cast<ElectStmt>(&s);
      if (!e->body || !containsSyncEvents(*e->body)) return active;
      Active elected, others;
      int64_t lastWarp = -1;
      for (int64_t t : active) {
        if (t / 32 != lastWarp) {
          elected.push_back(t);
          lastWarp = t / 32;
        } else {
          others.push_back(t);
        }
      }
      Active after = walk(*e->body, elected);
      return merge(after, others);
    }
    case StmtKind::If: {
      auto *i = cast<IfStmt>(&s);
      bool thenRelevant = i->thenBody && containsSyncEvents(*i->thenBody);
      bool elseRelevant = i->elseBody && containsSyncEvents(*i->elseBody);
      if (!thenRelevant && !elseRelevant) return active;
      if (values_.mayGuards && values_.mayGuards->count(i)) {
        // Either branch may run for any thread: both are walked with every active thread (data guards
        // hold no `return`, so neither changes the active set); a wgmma.wait in them is taken not to run.
        ++mayDepth_;
        if (i->thenBody) walk(*i->thenBody, active);
        if (i->elseBody) walk(*i->elseBody, active);
        --mayDepth_;
        return active;
      }
      Active yes, no;
      if (!threadVarying(i->cond.get())) {
        std::string why;
        auto v = eval_.eval(*i->cond, ThreadPoint{&agent_, active.front()}, why);
        if (!v) {
          problem(i->cond->range, "the branch condition around synchronisation", "it depends on " + why,
                  eval_.failedVariable());
          return active;
        }
        (*v ? yes : no) = active;
      } else {
        for (int64_t t : active) {
          std::string why;
          auto v = eval_.eval(*i->cond, ThreadPoint{&agent_, t}, why);
          if (!v) {
            problem(i->cond->range, "the branch condition around synchronisation", "it depends on " + why,
                    eval_.failedVariable());
            return active;
          }
          (*v ? yes : no).push_back(t);
        }
      }
      Active after = yes.empty() ? Active{} : walk(*i->thenBody, yes);
      Active afterElse = (no.empty() || !i->elseBody) ? no : walk(*i->elseBody, no);
      return merge(after, afterElse);
    }
    case StmtKind::For: {
      auto *f = cast<ForStmt>(&s);
      if (!f->body || !containsSyncEvents(*f->body)) return active;
      if (auto ov = values_.tripOverrides.find(f); ov != values_.tripOverrides.end()) {
        bool first = !tileLoopSeen_;
        tileLoopSeen_ = true;
        if (first && resume_) {
          // A tail walk: after T tiles the walk is where the longer one was when it began tile T (or left
          // the loop, when its threads were gone earlier); continue from that state.
          if (resume_->empty()) {
            mismatch_ = true;
            return active;
          }
          size_t at = std::min(static_cast<size_t>(std::max<int64_t>(ov->second, 0)), resume_->size() - 1);
          const SyncProgram::TileStart &st = (*resume_)[at];
          counters_ = st.counters;
          counterThreads_ = st.counterThreads;
          counterOrder_ = st.counterOrder;
          split_ = at;
          silent_ = false;
          return st.active;
        }
        context_.emplace_back(f->name + "#", 0);   // the iteration number, not the variable's value
        for (int64_t j = 0; j < ov->second && !active.empty() && !overflow_; ++j) {
          if (first) recordTileStart(active);
          context_.back().second = j;
          active = walk(*f->body, std::move(active));
        }
        if (first) recordTileStart(active);
        context_.pop_back();
        return active;
      }
      auto lo = uniform(f->lower.get(), active, "the loop's lower bound");
      auto hi = uniform(f->upper.get(), active, "the loop's upper bound");
      std::optional<int64_t> step = 1;
      if (f->step) step = uniform(f->step.get(), active, "the loop's step");
      if (!lo || !hi || !step) return active;
      if (*step <= 0) {
        problem(f->range, "the loop's step", "it is not positive");
        return active;
      }
      // More iterations than events a role may have: an iteration of a loop holding synchronisation emits an
      // event unless a branch skips them all, so the walk would end at the cap after expanding up to 200000
      // events (seconds for a large shape's loop).  The cap's verdict at once (a loop whose iterations mostly
      // skip every event is unproven too, rather than walked).
      if (const int64_t trips = *hi > *lo ? (*hi - *lo + *step - 1) / *step : 0;
          trips > static_cast<int64_t>(kMaxEventsPerAgent)) {
        if (!overflow_)
          problem(f->range, "the synchronisation program",
                  "its loop '" + f->name + "' runs " + std::to_string(trips) +
                      " times, more than the 200000 events per role the simulation expands");
        overflow_ = true;
        return active;
      }
      context_.emplace_back(f->name, 0);
      for (int64_t k = *lo; k < *hi && !active.empty() && !overflow_; k += *step) {
        loops_[f] = k;
        context_.back().second = k;
        active = walk(*f->body, std::move(active));
      }
      loops_.erase(f);
      context_.pop_back();
      return active;
    }
    case StmtKind::Op: op(*cast<OpStmt>(&s), active); return active;
    default: return active;   // declarations
    }
  }

private:
  static Active merge(const Active &a, const Active &b) {
    Active r;
    std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(r));
    return r;
  }

  void recordTileStart(const Active &active) {
    tileStarts_.push_back({out_.size(), counters_, counterThreads_, counterOrder_, active});
  }

  void problem(SourceRange range, std::string what, std::string reason, const Decl *variable = nullptr) {
    for (const SyncProblem &p : problems_)
      if (p.range.begin.offset == range.begin.offset && p.what == what) return;
    problems_.push_back({range, std::move(what), std::move(reason), variable});
  }

  // Does e depend on the thread within the agent (tid, lane, warp, ROLE.warp / ROLE.thread)?  Cached.
  bool threadVarying(const Expr *e) {
    if (!e) return false;
    auto it = threadVarying_.find(e);
    if (it != threadVarying_.end()) return it->second;
    bool varying = computeThreadVarying(e, 0);
    threadVarying_.emplace(e, varying);
    return varying;
  }
  bool computeThreadVarying(const Expr *e, unsigned depth) {
    if (!e) return false;
    if (depth > kMaxEvalDepth) return true;
    if (auto bv = builtinValueOf(*e)) {
      switch (*bv) {
      case BuiltinValue::TidX: case BuiltinValue::TidY: case BuiltinValue::TidZ: case BuiltinValue::Lane:
      case BuiltinValue::Warp: case BuiltinValue::RoleWarp: case BuiltinValue::RoleThread: return true;
      default: return false;
      }
    }
    switch (e->kind) {
    case ExprKind::Name: {
      const Decl *d = cast<NameExpr>(e)->decl;
      if (d && d->declKind == DeclKind::Let) {   // cached per let: chains of lets stay linear
        const Expr *init = static_cast<const LetStmt *>(d)->init.get();
        if (auto it = threadVarying_.find(init); it != threadVarying_.end()) return it->second;
        bool varying = computeThreadVarying(init, depth + 1);
        threadVarying_.emplace(init, varying);
        return varying;
      }
      return false;   // counters are per agent (checked at their update); loop variables are uniform
    }
    case ExprKind::Unary: return computeThreadVarying(cast<UnaryExpr>(e)->operand.get(), depth + 1);
    case ExprKind::Binary:
      return computeThreadVarying(cast<BinaryExpr>(e)->lhs.get(), depth + 1) ||
             computeThreadVarying(cast<BinaryExpr>(e)->rhs.get(), depth + 1);
    case ExprKind::Call:
      for (const Ptr<Expr> &a : cast<CallExpr>(e)->args)
        if (computeThreadVarying(a.get(), depth + 1)) return true;
      return false;
    case ExprKind::Member: return computeThreadVarying(cast<MemberExpr>(e)->base.get(), depth + 1);
    case ExprKind::IntLit: case ExprKind::BoolLit: return false;
    default: return true;   // loads and the like: evaluate per thread (they fail anyway)
    }
  }

  // A value every active thread agrees on.
  std::optional<int64_t> uniform(const Expr *e, const Active &active, const char *what) {
    if (!e || active.empty()) return std::nullopt;
    std::optional<int64_t> first;
    for (int64_t t : threadVarying(e) ? active : Active{active.front()}) {
      std::string why;
      auto v = eval_.eval(*e, ThreadPoint{&agent_, t}, why);
      if (!v) {
        problem(e->range, what, "it depends on " + why, eval_.failedVariable());
        return std::nullopt;
      }
      if (first && *first != *v) {
        problem(e->range, what, "it differs between the threads of " + agent_.name);
        return std::nullopt;
      }
      first = v;
    }
    return first;
  }

  // The loop iterations and counter values of the current point, as text for the events' notes; the text
  // of the previous call is reused while they are unchanged (most events share their iteration with the
  // previous one, and formatting it for each was a fifth of a long expansion).
  std::string where() {
    whereKey_.clear();
    for (const Decl *d : counterOrder_) {
      auto it = counters_.find(d);
      whereKey_.push_back(it == counters_.end() ? std::nullopt : std::optional<int64_t>(it->second));
    }
    if (whereValid_ && context_ == whereContext_ && whereKey_ == whereCounters_) return whereText_;
    std::string w;
    for (const auto &[name, value] : context_) {
      if (!w.empty()) w += ", ";
      w += name + " = " + std::to_string(value);
    }
    for (size_t i = 0; i < counterOrder_.size(); ++i)
      if (whereKey_[i]) w += (w.empty() ? "" : ", ") + counterOrder_[i]->name + " = " + std::to_string(*whereKey_[i]);
    whereContext_ = context_;
    whereCounters_ = whereKey_;
    whereText_ = w;
    whereValid_ = true;
    return w;
  }

  SyncEvent event(EventKind kind, SourceRange range, const OpStmt *op, const Active &active) {
    SyncEvent e;
    e.kind = kind;
    e.range = range;
    e.op = op;
    e.multiplicity = static_cast<int64_t>(active.size());
    e.where = where();
    e.threads = threadSet(active);
    return e;
  }

  // The active set as a shared thread list (consecutive events usually have the same one).
  std::shared_ptr<const std::vector<int64_t>> threadSet(const Active &active) {
    if (!lastThreads_ || *lastThreads_ != active) lastThreads_ = std::make_shared<const std::vector<int64_t>>(active);
    return lastThreads_;
  }

  void push(SyncEvent e) {
    if (out_.size() >= kMaxEventsPerAgent) {
      if (!overflow_) problem(e.range, "the synchronisation program", "it has more than 200000 events per role");
      overflow_ = true;
      return;
    }
    out_.push_back(std::move(e));
  }

  // `sync BAR` / `arrive BAR` (`BAR[i]`): the hardware id and thread count; the hardware counts every warp
  // that executes it as 32 threads.
  void namedBarrier(EventKind kind, const OpStmt &o, const Active &active) {
    const Expr *index = nullptr;
    const BarrierStmt *b = namedBarrierOperand(o, &index);
    const NamedBarrierInfo *nb = b ? info_.namedBarrierOf(b) : nullptr;
    if (!nb || active.empty()) return;
    int64_t element = 0;
    if (index) {
      auto i = uniform(index, active, "the named barrier index");
      if (!i) return;
      if (*i < 0 || *i >= nb->count) {
        problem(index->range, "the named barrier index",
                "index " + std::to_string(*i) + " is out of range [0, " + std::to_string(nb->count) + ")");
        return;
      }
      element = *i;
    }
    SyncEvent e = event(kind, o.range, &o, active);
    std::vector<int64_t> warps;
    for (int64_t t : active)
      if (warps.empty() || warps.back() != t / 32) warps.push_back(t / 32);
    e.multiplicity = 32 * static_cast<int64_t>(warps.size());
    e.namedId = nb->id + element;
    e.count = nb->threads;
    push(std::move(e));
  }

  // The mbarrier slot an operand names (full[s], loaded), on CTA `cta`.  -1 after reporting a problem.
  std::vector<int> barrierSlots(const Expr *operand, const Active &active, int cta, bool all) {
    const Decl *d = rootDecl(operand);
    if (!d || d->declKind != DeclKind::MBarrier) return {};
    const MBarrierInfo *mb = info_.mbarrierOf(static_cast<const MBarrierStmt *>(d));
    if (!mb) return {};
    std::vector<const IndexExpr *> chain = indexChain(operand);
    if (chain.empty() || chain[0]->items.empty() || !chain[0]->items[0].start) {
      std::vector<int> slots;
      if (all || mb->count == 1)
        for (int64_t i = 0; i < mb->count; ++i) slots.push_back(slots_.barrierSlot(cta, mb, i));
      return slots;
    }
    auto idx = uniform(chain[0]->items[0].start.get(), active, "the mbarrier index");
    if (!idx) return {};
    int slot = slots_.barrierSlot(cta, mb, *idx);
    if (slot < 0) {
      problem(operand->range, "the mbarrier index", "index " + std::to_string(*idx) + " is out of range [0, " +
                                                        std::to_string(mb->count) + ")");
      return {};
    }
    return {slot};
  }

  // The stage slots an access of a shared array touches: the one its stage indices name (u[s][w]: s WG + w),
  // every stage under the levels it indexes (u[s]: s WG .. s WG + WG - 1; u: all).  nullopt: an index is not
  // known (not uniform, reported) or out of range (reported).
  std::optional<std::vector<int>> stageSlots(const Expr *ref, const Active &active, int cta) {
    const Decl *d = rootDecl(ref);
    const SharedAllocation *sa = info_.sharedOf(static_cast<const SharedStmt *>(d));
    if (!sa) return std::nullopt;
    const Type *type = sa->decl->type;
    const size_t levels = stageLevels(type);
    std::vector<const IndexExpr *> chain = indexChain(ref);
    int64_t prefix = 0;   // the flattened index of the levels indexed
    size_t level = 0;
    for (; level < levels && level < chain.size(); ++level) {
      const std::vector<TensorDim> &dims = type->groups[level];
      const std::vector<IndexItem> &items = chain[level]->items;
      const bool points = items.size() == dims.size() &&
                          std::all_of(items.begin(), items.end(), [](const IndexItem &i) { return i.kind == IndexItem::Point && i.start; });
      if (!points) break;   // a level sliced or left whole: every stage under it
      for (size_t k = 0; k < dims.size(); ++k) {
        auto idx = uniform(items[k].start.get(), active, "the stage index");
        if (!idx) return std::nullopt;
        const int64_t extent = dims[k].value.value_or(1);
        if (*idx < 0 || *idx >= extent) {
          problem(ref->range, "the stage index", "index " + std::to_string(*idx) + " is out of range [0, " +
                                                     std::to_string(extent) + ")");
          return std::nullopt;
        }
        prefix = prefix * extent + *idx;
      }
    }
    int64_t open = 1;   // the stages under the indexed levels
    for (size_t g = level; g < levels; ++g)
      for (const TensorDim &dim : type->groups[g]) open *= dim.value.value_or(1);
    std::vector<int> slots;
    for (int64_t j = 0; j < open; ++j)
      if (int slot = slots_.stageSlot(cta, sa, prefix * open + j); slot >= 0) slots.push_back(slot);
    return slots;
  }

  // The rows of the tile a copy writes when the destination is a slice (b[s][r * 64 +: 64, :]), in the
  // array's storage order (a column block of a blocked array: v[s][:, 64 +: 64] is rows R .. 2R).
  void tileRows(const Expr *ref, const Active &active, SyncEvent &e) {
    const Decl *d = rootDecl(ref);
    const SharedAllocation *sa = info_.sharedOf(static_cast<const SharedStmt *>(d));
    if (!sa) return;
    std::vector<const IndexExpr *> chain = indexChain(ref);
    const size_t g = stageLevels(sa->decl->type);
    if (chain.size() <= g || chain[g]->items.empty()) return;
    // A column-blocked array (rows wider than the swizzle span, frontend/SharedLayout.h) stores block j's
    // rows after all rows of block j - 1: a tile of block j covers rows j * R + r0 .. of that order.
    int64_t blockRows = 0, blockCols = 0;
    if (const Type *t = sa->decl->type; t && sa->swizzleBytes && !t->groups.empty() && t->groups.back().size() >= 2) {
      const int64_t eb = t->element ? t->element->sizeInBytes().value_or(0) : 0;
      const int64_t cols = t->groups.back().back().value.value_or(0);
      if (eb > 0 && cols * eb > sa->swizzleBytes) {
        blockRows = t->groups.back()[t->groups.back().size() - 2].value.value_or(0);
        blockCols = sa->swizzleBytes / eb;
      }
    }
    int64_t blockBase = 0;
    if (blockRows > 0 && chain[g]->items.size() >= 2) {
      const IndexItem &col = chain[g]->items.back();
      if (col.kind != IndexItem::Full && col.start) {
        auto c0 = uniform(col.start.get(), active, "the first column of the copied tile");
        if (!c0) return;
        blockBase = (*c0 / blockCols) * blockRows;
        e.lo = blockBase;
        e.hi = blockBase + blockRows;
      }
    }
    const IndexItem &first = chain[g]->items[0];
    if (first.kind == IndexItem::Full || !first.start) return;
    auto start = uniform(first.start.get(), active, "the first row of the copied tile");
    std::optional<int64_t> length = 1;
    if (first.kind == IndexItem::Slice && first.length) length = uniform(first.length.get(), active, "the rows of the copied tile");
    if (!start || !length) return;
    e.lo = blockBase + *start;
    e.hi = blockBase + *start + *length;
  }

  void emitSharedAccess(EventKind kind, const Expr *ref, const Active &active, SourceRange range, const OpStmt *op) {
    if (silent_) return;
    std::optional<std::vector<int>> slotsToTouch = stageSlots(ref, active, agent_.cta);
    if (!slotsToTouch) return;
    for (int s : *slotsToTouch) {
      SyncEvent e = event(kind, range, op, active);
      e.stages = {s};
      push(std::move(e));
    }
  }

  void emitReads(const Expr *e, const Active &active, SourceRange range) {
    if (!e || silent_) return;
    auto it = sharedReads_.find(e);
    if (it == sharedReads_.end()) {
      std::vector<const Expr *> refs;
      collectSharedRefs(e, refs);
      it = sharedReads_.emplace(e, std::move(refs)).first;
    }
    for (const Expr *r : it->second) emitSharedAccess(EventKind::Read, r, active, r->range, nullptr);
  }

  std::optional<int64_t> clauseValue(const OpStmt &o, std::string_view name, const Active &active) {
    const Clause *c = findClause(o, name);
    if (!c || c->args.empty()) return std::nullopt;
    return uniform(c->args[0].get(), active, name == "parity" ? "the wait parity"
                                             : name == "expect_tx" ? "the expect_tx byte count"
                                             : name == "cta" ? "the target CTA"
                                             : name == "multicast" ? "the multicast mask" : "the clause value");
  }

  void op(const OpStmt &o, const Active &active) {
    if (!o.op || silent_) return;
    SourceRange r = o.range;
    switch (o.op->id) {
    case OpId::MbarrierInit: {
      if (o.dsts.empty()) return;
      SyncEvent e = event(EventKind::Init, r, &o, active);
      e.barriers = barrierSlots(o.dsts[0].get(), active, agent_.cta, true);
      if (!e.barriers.empty()) push(std::move(e));
      return;
    }
    case OpId::FenceMbarrierInit: push(event(EventKind::FenceInit, r, &o, active)); return;
    case OpId::Syncthreads: push(event(EventKind::BlockSync, r, &o, active)); return;
    case OpId::ClusterSync:
      push(event(EventKind::ClusterArrive, r, &o, active));
      push(event(EventKind::ClusterWait, r, &o, active));
      return;
    case OpId::ClusterArrive: push(event(EventKind::ClusterArrive, r, &o, active)); return;
    case OpId::ClusterWait: push(event(EventKind::ClusterWait, r, &o, active)); return;
    case OpId::Sync: namedBarrier(EventKind::NamedSync, o, active); return;
    case OpId::Arrive: {
      if (namedBarrierOperand(o)) {
        namedBarrier(EventKind::NamedArrive, o, active);
        return;
      }
      if (o.dsts.empty() || !isMBarrierRef(o.dsts[0].get())) return;
      int cta = agent_.cta;
      if (findClause(o, "cta")) {
        auto c = clauseValue(o, "cta", active);
        if (!c) return;
        if (*c < 0 || *c >= info_.clusterCtas()) {
          problem(r, "the target CTA", "CTA " + std::to_string(*c) + " is outside the cluster");
          return;
        }
        cta = static_cast<int>(*c);
      }
      SyncEvent e = event(EventKind::Arrive, r, &o, active);
      e.barriers = barrierSlots(o.dsts[0].get(), active, cta, false);
      if (e.barriers.size() != 1) return;
      if (findClause(o, "expect_tx")) {
        auto b = clauseValue(o, "expect_tx", active);
        if (!b) return;
        e.bytes = *b;
      }
      push(std::move(e));
      return;
    }
    case OpId::MbarrierExpectTx: {
      if (o.dsts.size() < 2) return;
      SyncEvent e = event(EventKind::ExpectTx, r, &o, active);
      e.barriers = barrierSlots(o.dsts[0].get(), active, agent_.cta, false);
      auto b = uniform(o.dsts[1].get(), active, "the expect_tx byte count");
      if (e.barriers.size() != 1 || !b) return;
      e.bytes = *b;
      push(std::move(e));
      return;
    }
    case OpId::Wait: {
      if (o.dsts.empty() || !isMBarrierRef(o.dsts[0].get())) return;
      SyncEvent e = event(EventKind::Wait, r, &o, active);
      e.barriers = barrierSlots(o.dsts[0].get(), active, agent_.cta, false);
      auto p = clauseValue(o, "parity", active);
      if (e.barriers.size() != 1 || !p) return;
      e.parity = *p & 1;
      push(std::move(e));
      return;
    }
    case OpId::TmaLoad: {
      if (o.dsts.empty()) return;
      const Clause *signal = findClause(o, "signal");
      if (!signal || signal->args.empty()) return;
      std::vector<int> ctas = {agent_.cta};
      if (findClause(o, "multicast")) {
        auto mask = clauseValue(o, "multicast", active);
        if (!mask) return;
        ctas.clear();
        for (int c = 0; c < info_.clusterCtas() && c < 62; ++c)
          if ((*mask >> c) & 1) ctas.push_back(c);
      }
      std::optional<int64_t> bytes = o.dsts[0]->type ? o.dsts[0]->type->sizeInBytes() : std::nullopt;
      if (!bytes) {
        problem(o.dsts[0]->range, "the bytes of the copy", "the tile's size is not a constant");
        return;
      }
      SyncEvent e = event(EventKind::TmaLoad, r, &o, active);
      e.bytes = *bytes;
      tileRows(o.dsts[0].get(), active, e);
      for (int c : ctas) {
        std::vector<int> bar = barrierSlots(signal->args[0].get(), active, c, false);
        std::optional<std::vector<int>> stage = stageSlots(o.dsts[0].get(), active, c);
        if (bar.size() != 1 || !stage || stage->size() != 1) return;
        e.barriers.push_back(bar[0]);
        e.stages.push_back(stage->front());
      }
      push(std::move(e));
      return;
    }
    case OpId::TmaStore:
      for (const Ptr<Expr> &s : o.srcs)
        if (isSharedRef(s.get())) emitSharedAccess(EventKind::StoreRead, s.get(), active, r, &o);
      return;
    case OpId::TmaStoreCommit: push(event(EventKind::StoreCommit, r, &o, active)); return;
    case OpId::TmaStoreWait: case OpId::WgmmaWait: {
      if (mayDepth_ > 0) return;   // a wait that may not run orders nothing (only a data guard holds one)
      SyncEvent e = event(o.op->id == OpId::WgmmaWait ? EventKind::WgmmaWait : EventKind::StoreWait, r, &o, active);
      if (!o.dsts.empty()) {
        auto n = uniform(o.dsts[0].get(), active, "the number of pending groups");
        if (!n) return;
        e.count = *n;
      }
      push(std::move(e));
      return;
    }
    case OpId::WgmmaCommit: push(event(EventKind::WgmmaCommit, r, &o, active)); return;
    case OpId::Syncwarp: {
      // Orders the mask's lanes of each executing warp (ThreadKnowledge); a mask that is not a constant
      // orders nothing here (the warp-barrier family reports it).
      SyncEvent e = event(EventKind::WarpSync, r, &o, active);
      if (!o.dsts.empty() && o.dsts[0]) {
        std::optional<int64_t> m = ConstEvaluator().evaluate(*o.dsts[0]).optional();
        if (!m) return;
        e.laneMask = static_cast<uint32_t>(*m);
      }
      push(std::move(e));
      return;
    }
    case OpId::Tcgen05Commit: {
      // One arrival on the mbarrier, made when the issuing thread's earlier tcgen05.mma have completed: as
      // an arrive at this point of the thread's program, after the MMAs' shared-memory reads (modelled as the
      // issuing thread's reads at the tcgen05.mma).
      if (o.dsts.empty() || !isMBarrierRef(o.dsts[0].get())) return;
      SyncEvent e = event(EventKind::Arrive, r, &o, active);
      e.barriers = barrierSlots(o.dsts[0].get(), active, agent_.cta, false);
      if (e.barriers.size() != 1) return;
      push(std::move(e));
      return;
    }
    case OpId::Wgmma: {
      std::vector<const Expr *> refs;
      for (const Ptr<Expr> &s : o.srcs) collectSharedRefs(s.get(), refs);
      for (const Expr *ref : refs) emitSharedAccess(EventKind::ReadAsync, ref, active, r, &o);
      return;
    }
    default: {
      std::vector<const Expr *> refs;
      for (const Ptr<Expr> &s : o.srcs) collectSharedRefs(s.get(), refs);
      for (const Expr *ref : refs) emitSharedAccess(EventKind::Read, ref, active, r, &o);
      for (const Ptr<Expr> &d : o.dsts)
        if (isSharedRef(d.get())) emitSharedAccess(EventKind::Write, d.get(), active, r, &o);
      return;
    }
    }
  }

  const KernelInfo &info_;
  const SlotTable &slots_;
  const SyncAgent &agent_;
  const ConcreteValues &values_;
  std::vector<SyncEvent> &out_;
  std::vector<SyncProblem> &problems_;
  std::vector<SyncProgram::TileStart> &tileStarts_;
  const std::vector<SyncProgram::TileStart> *resume_;   // a tail walk: the longer program's tile starts
  int mayDepth_ = 0;            // inside a data guard the analysis could not evaluate (mayGuards)
  bool silent_ = false;         // a tail walk before its first tile loop: no events (the longer one has them)
  bool tileLoopSeen_ = false;   // the first tile-loop run has started
  bool mismatch_ = false;
  std::optional<size_t> split_;
  DeclMap<int64_t> loops_;
  DeclMap<int64_t> counters_;            // induction counters in scope: current value
  DeclMap<Active> counterThreads_;       // the threads that declared each counter
  std::vector<const Decl *> counterOrder_;              // counters in declaration order (for `where`)
  std::map<const Expr *, bool> threadVarying_;
  Evaluator eval_;
  std::vector<std::pair<std::string, int64_t>> context_;
  // where()'s last text and what it was made of (counter values parallel to counterOrder_).
  bool whereValid_ = false;
  std::vector<std::pair<std::string, int64_t>> whereContext_;
  std::vector<std::optional<int64_t>> whereCounters_, whereKey_;
  std::string whereText_;
  // The shared-memory reads of each expression emitReads has seen (collectSharedRefs, once per expression).
  std::unordered_map<const Expr *, std::vector<const Expr *>> sharedReads_;
  bool overflow_ = false;
  std::shared_ptr<const std::vector<int64_t>> lastThreads_;   // threadSet's last result
};

} // namespace


SyncProgram expandSync(const Kernel &kernel, const KernelInfo &info, const SlotTable &slots,
                       const std::vector<SyncAgent> &agents, const ConcreteValues &values) {
  SyncProgram p;
  p.events.resize(agents.size());
  p.tileStarts.resize(agents.size());
  for (size_t i = 0; i < agents.size(); ++i) {
    Walker w(info, slots, agents[i], values, p.events[i], p.problems, p.tileStarts[i], nullptr);
    if (kernel.body) w.walk(*kernel.body, agents[i].threads);
  }
  return p;
}

SyncProgram expandSyncTail(const Kernel &kernel, const KernelInfo &info, const SlotTable &slots,
                           const std::vector<SyncAgent> &agents, const ConcreteValues &values,
                           const SyncProgram &longer) {
  SyncProgram p;
  p.events.resize(agents.size());
  p.tileStarts.resize(agents.size());
  p.base = &longer;
  p.basePrefix.resize(agents.size());
  for (size_t i = 0; i < agents.size(); ++i) {
    const std::vector<SyncProgram::TileStart> &starts = longer.tileStarts[i];
    Walker w(info, slots, agents[i], values, p.events[i], p.problems, p.tileStarts[i], &starts);
    if (kernel.body) w.walk(*kernel.body, agents[i].threads);
    if (w.split()) {
      p.basePrefix[i] = starts[*w.split()].event;
    } else if (starts.empty() && !w.mismatch()) {
      p.basePrefix[i] = longer.events[i].size();   // no tile loop: the agent's events do not depend on T
      p.events[i].clear();
    } else {   // cannot happen (the walks agree up to the first tile loop): expand this agent in full
      p.events[i].clear();
      p.tileStarts[i].clear();
      Walker full(info, slots, agents[i], values, p.events[i], p.problems, p.tileStarts[i], nullptr);
      if (kernel.body) full.walk(*kernel.body, agents[i].threads);
      p.basePrefix[i] = 0;
    }
  }
  return p;
}

} // namespace cake
