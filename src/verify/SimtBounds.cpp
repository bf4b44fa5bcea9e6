// Verifier family: SIMT global and shared accesses in bounds (E0652), aligned (E0671), computed without
// 32-bit wrap-around (E0670); E0601 when undecided.
//
// Algorithm: walk the kernel body keeping the path condition - the conditions of the enclosing `if`s (negated
// in `else`, and negated for the rest of a block after `if c { ... return; }`), plus the launch facts: inside role R, tid.x lies in R's threads and R.index / R.warp / R.thread /
// warp / lane are tied to tid.x; outside roles warp = tid.x / 32 and lane = tid.x % 32.  Loop variables get
// their range from the translator (lower <= v < upper, (v - lower) % step == 0), builtins their launch
// ranges (tid.x < threads, block.x < grid.x as evaluated, lane < 32), lets are substituted, requires(...)
// is assumed.  For every index item of every load / store / atomic target (atom.* calls, red.*) / per-thread operand (cp.async, ldmatrix,
// stmatrix, and `store` tiles, whose extent is the fragment's M x N) on a global or shared tensor, Z3 proves
//     0 <= start   and   start + length <= dim
// for all values satisfying the path condition.  A refutation is an error with the counterexample and the
// concrete index / dimension it produces ("A[1023] is past N = 1000"); when a path condition could not be
// translated (it reads memory or a mutable var) the refutation might be spurious and is reported as
// unproven instead, as is any index the translator cannot express.  Tiles moved by TMA (which clips at the
// tensor edge) and wgmma operands are not SIMT accesses and are skipped; register arrays are codegen's
// (constant indices, E0703).  A zero-filling `cp.async D <- S valid(c)` reads S only where c holds: its source
// is checked with c added to the path condition (the copy is in bounds exactly when c implies it is).
//
// Vector alignment (E0671): every vector access (X[i +: n], cp.async, ldmatrix rows) is proven aligned to its
// size, 16 bytes at most, from the declared base alignment and the byte offset of its index (checkAlignment);
// a base declared less aligned is an error unless the path condition is contradictory (a branch on
// compile-time parameters that this build never takes).
//
// Wrap-around (E0670): the translator's integers are mathematical, the GPU's i32 / u32 are modulo 2^32, so
// the proofs above hold for the GPU only while no intermediate value leaves its type.  At every index start,
// if condition, and loop bound (through the lets they use), each +, -, *, /, <<, negation and i32 / u32
// conversion is proven inside its type's range under the path condition (cdiv is computed as
// a / b + (a % b > 0), which cannot wrap), and so is a loop variable plus its step (N steps for unroll(N)):
// the increment after the last iteration, which would otherwise wrap and pass `v < upper` again.  So is every
// induction counter (InductionCounters.h: `var it: i32 = c0` advanced by `it += c` once per iteration of a loop):
// its last value c0 + c * (the product of the trip counts of the loops between its declaration and its update,
// each at its largest over the enclosing loops' variables; asked first with the loops whose lower bound is >= 0
// counted from 0, which a requires(...) on the product of the loops' bounds settles at once) stays in its type -
// the sync analysis takes a counter that only grows to stay at or above c0, and its stage indices and parities
// to be those of the mathematical count, which the GPU's counter is only while it does not wrap.  Nodes in range
// by interval arithmetic over their operands' bounds (IntervalBounds) need no query; one query per site for the
// rest (the conjunction); on a refutation the first node out of range in the counterexample is reported, once
// per node.
#include "frontend/Limits.h"
#include "verify/Families.h"
#include "verify/InductionCounters.h"
#include "verify/IntervalBounds.h"
#include "verify/RootDecl.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"
#include "verify/Z3Terms.h"

#include "frontend/Builtins.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

namespace cake {

namespace {

constexpr unsigned kWrapBudgetShare = 10;   // a wrap-around query gets --verify-timeout / 10
constexpr unsigned kMaxNarrowDepth = kMaxExprDepth;   // levels of an expression (and its lets) searched for wrap-around

class BoundsChecker {
public:
  explicit BoundsChecker(VerifyContext &ctx) : ctx_(ctx) {}

  void run() {
    if (!ctx_.kernel().body) return;
    counters_ = findInductionCounters(ctx_.kernel(), ctx_.info());
    linkThreadBuiltins(nullptr);
    runBlock(*ctx_.kernel().body);
  }

private:
  VerifyContext &ctx_;
  std::vector<z3::expr> path_;
  unsigned untranslatedConds_ = 0;
  const RoleStmt *role_ = nullptr;
  const Expr *zeroFillCond_ = nullptr;   // while checking the source of `cp.async ... valid(c)`: c
  std::set<const Expr *> wrapReported_;  // nodes already reported as wrapping (E0670)
  // Out-of-bounds fix-its: the simple statement (assignment, let, var) being checked, the block being run (the
  // kernel's own block: not in a loop, branch or role), its accesses found out of bounds so far (each with the
  // condition that keeps it inside and the negation), and the early returns offered by each condition they
  // test (an access after one at the top level is covered by it).
  struct PendingGuard {
    DiagBuilder diag;
    std::string inside, outside;
  };
  const Stmt *simple_ = nullptr;
  const BlockStmt *block_ = nullptr;
  std::vector<PendingGuard> pending_;
  std::map<std::string, FixIt> returnsOffered_;
  InductionCounters counters_;
  std::vector<const ForStmt *> loops_;                 // the loops around the statement being checked
  std::map<const Decl *, size_t> loopsAtDeclaration_;  // induction counter -> loops_.size() at its `var`

  // warp / lane / ROLE.* as functions of tid.x.
  void linkThreadBuiltins(const RoleStmt *role) {
    ExprToZ3 &t = ctx_.translator();
    z3::expr tid = t.builtinVar(BuiltinValue::TidX);
    path_.push_back(t.builtinVar(BuiltinValue::Warp) == tid / 32);
    path_.push_back(t.builtinVar(BuiltinValue::Lane) == z3::mod(tid, 32));
    const RoleInfo *ri = role ? ctx_.info().roleOf(role) : nullptr;
    if (!ri || !ri->rangeKnown || ri->warpsPerInstance() <= 0) return;
    int64_t wpi = ri->warpsPerInstance();
    path_.push_back(tid >= ctx_.z3().int_val(ri->firstWarp * 32));
    path_.push_back(tid < ctx_.z3().int_val(ri->endWarp * 32));
    z3::expr rel = tid - ctx_.z3().int_val(ri->firstWarp * 32);
    path_.push_back(t.builtinVar(BuiltinValue::RoleIndex, role) == rel / ctx_.z3().int_val(wpi * 32));
    path_.push_back(t.builtinVar(BuiltinValue::RoleThread, role) == z3::mod(rel, ctx_.z3().int_val(wpi * 32)));
    path_.push_back(t.builtinVar(BuiltinValue::RoleWarp, role) == z3::mod(rel, ctx_.z3().int_val(wpi * 32)) / 32);
  }

  // `if c { ...; return; }` without else: the rest of the block runs only where c is false.
  static bool endsInReturn(const BlockStmt *b) {
    return b && !b->stmts.empty() && b->stmts.back() && isa<ReturnStmt>(b->stmts.back().get());
  }

  void runBlock(const BlockStmt &b) {
    size_t mark = path_.size();
    unsigned dropped = untranslatedConds_;
    const BlockStmt *outer = block_;
    block_ = &b;
    for (auto &s : b.stmts) {
      if (!s) continue;
      runStmt(*s);
      auto *i = dynCast<IfStmt>(s.get());
      if (i && !i->elseBody && i->cond && endsInReturn(i->thenBody.get())) {
        if (auto c = ctx_.toZ3(*i->cond); c && c->is_bool()) path_.push_back(!*c);
        else ++untranslatedConds_;
      }
    }
    block_ = outer;
    path_.resize(mark, ctx_.z3().bool_val(true));
    untranslatedConds_ = dropped;
  }

  // Runs `check` with `s` as the simple statement an out-of-bounds fix-it guards, then gives each access it
  // found out of bounds the statement's tail guard (the hint's, as a fix-it): an assignment goes under
  // `if inside { ... }` (every failing bound of the statement joined by &&); a let or var of the kernel's own
  // block, whose name later statements use, gets `if outside { return; }` before it.  Nothing for a let inside a
  // loop or branch (a return there would skip more than the statement).
  void asSimple(const Stmt &s, const std::function<void()> &check) {
    simple_ = &s;
    check();
    simple_ = nullptr;
    if (pending_.empty()) return;
    std::vector<std::string> insides, outsides;
    for (const PendingGuard &g : pending_) {
      if (std::find(insides.begin(), insides.end(), g.inside) == insides.end()) insides.push_back(g.inside);
      if (std::find(outsides.begin(), outsides.end(), g.outside) == outsides.end()) outsides.push_back(g.outside);
    }
    auto join = [](const std::vector<std::string> &parts, const char *op) {
      std::string all;
      for (const std::string &p : parts) all += (all.empty() ? "" : op) + (parts.size() > 1 && p.find(op) != std::string::npos ? "(" + p + ")" : p);
      return all;
    };
    std::optional<FixIt> fix;
    if (isa<AssignStmt>(&s)) {
      fix = guardStatement(ctx_.diags(), s.range, join(insides, " && "));
    } else if (block_ == ctx_.kernel().body.get()) {
      fix = insertStatementBefore(ctx_.diags(), s.range, "if " + join(outsides, " || ") + " { return; }");
      for (const std::string &o : outsides) returnsOffered_.emplace(o, *fix);
    }
    if (fix)
      for (PendingGuard &g : pending_) g.diag.fixit(*fix);
    pending_.clear();
  }

  void withCondition(const Expr *cond, bool holds, const std::function<void()> &body) {
    size_t mark = path_.size();
    unsigned dropped = untranslatedConds_;
    if (cond) {
      scanExpr(*cond, "load");
      checkWrap(*cond, "condition");
      if (auto c = ctx_.toZ3(*cond); c && c->is_bool()) path_.push_back(holds ? *c : !*c);
      else ++untranslatedConds_;
    }
    body();
    path_.resize(mark, ctx_.z3().bool_val(true));
    untranslatedConds_ = dropped;
  }

  void runStmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Block: runBlock(*cast<BlockStmt>(&s)); break;
    case StmtKind::Let:
      if (auto &e = cast<LetStmt>(&s)->init) asSimple(s, [&] { scanExpr(*e, "load"); });
      break;
    case StmtKind::Var: {
      auto &v = *cast<VarStmt>(&s);
      if (v.init) asSimple(s, [&] { scanExpr(*v.init, "load"); });
      if (counters_.find(&v)) loopsAtDeclaration_[&v] = loops_.size();
      break;
    }
    case StmtKind::Assign: {
      auto &a = *cast<AssignStmt>(&s);
      asSimple(s, [&] {
        if (a.value) scanExpr(*a.value, "load");
        if (a.target) scanExpr(*a.target, "store");
      });
      checkCounterUpdate(a);
      break;
    }
    case StmtKind::Op: runOp(*cast<OpStmt>(&s)); break;
    case StmtKind::Role: {
      auto &r = *cast<RoleStmt>(&s);
      size_t mark = path_.size();
      const RoleStmt *saved = role_;
      role_ = &r;
      linkThreadBuiltins(&r);
      if (r.body) runBlock(*r.body);
      role_ = saved;
      path_.resize(mark, ctx_.z3().bool_val(true));
      break;
    }
    case StmtKind::For: {
      auto &f = *cast<ForStmt>(&s);
      for (const Expr *e : {f.lower.get(), f.upper.get(), f.step.get()})
        if (e) {
          scanExpr(*e, "load");
          checkWrap(*e, "loop bound");
        }
      checkLoopIncrement(f);
      // Inside the loop it runs: its variable's bounds join the path (the assumptions of a query take a loop's
      // bounds only for the loops the query mentions, VerifyContext::scopedAssumptions).
      const size_t mark = path_.size();
      const z3::expr v = ctx_.translator().declVar(&f);
      if (auto lo = f.lower ? ctx_.toZ3(*f.lower) : std::nullopt; lo && !lo->is_bool()) path_.push_back(v >= *lo);
      if (auto hi = f.upper ? ctx_.toZ3(*f.upper) : std::nullopt; hi && !hi->is_bool()) path_.push_back(v < *hi);
      loops_.push_back(&f);
      if (f.body) runBlock(*f.body);
      loops_.pop_back();
      path_.resize(mark, ctx_.z3().bool_val(true));
      break;
    }
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&s);
      withCondition(i.cond.get(), true, [&] { if (i.thenBody) runBlock(*i.thenBody); });
      if (i.elseBody) withCondition(i.cond.get(), false, [&] { runStmt(*i.elseBody); });
      break;
    }
    case StmtKind::Elect: if (auto &b = cast<ElectStmt>(&s)->body) runBlock(*b); break;
    default: break;
    }
  }

  void runOp(const OpStmt &op) {
    if (!op.op) return;
    switch (op.op->id) {
    case OpId::TmaLoad: case OpId::TmaStore: case OpId::Wgmma:
      return;   // tiles: TMA clips at the tensor edge; wgmma reads whole shared tiles
    case OpId::RedAdd: case OpId::RedMin: case OpId::RedMax: case OpId::RedAnd: case OpId::RedOr: case OpId::RedXor:
      if (op.arrow == OpArrow::None) {   // red.OP T[i], v: the element like a store, v's loads
        for (size_t i = 1; i < op.dsts.size(); ++i) if (op.dsts[i]) scanExpr(*op.dsts[i], "load");
        if (!op.dsts.empty() && op.dsts[0]) scanExpr(*op.dsts[0], "atomic");
        return;
      }
      [[fallthrough]];   // red.add T[r0, c0] <- frag: the fragment's tile, masked in global memory like `store`
    case OpId::Store: {
      // store T[r0, c0] <- frag: the fragment's M x N tile starting at (r0, c0).
      const Type *ft = op.srcs.empty() || !op.srcs[0] ? nullptr : op.srcs[0]->type;
      for (auto &src : op.srcs) if (src) scanExpr(*src, "load");
      if (op.dsts.empty() || !op.dsts[0]) return;
      auto *ix = dynCast<IndexExpr>(op.dsts[0].get());
      if (!ix || !ft || !ft->isFragment()) { scanExpr(*op.dsts[0], "store"); return; }
      scanExpr(*ix->base, "store");
      // A wgmma or tensor-memory accumulator stored into a global tensor is masked element-wise by the
      // tensor's dims (docs/hopper.md, docs/blackwell.md, language.md 13.2 `store`; LowerWgmma.cpp and
      // LowerTcgen05.cpp): in bounds by construction, like a TMA store.
      const bool reduction = op.op->id != OpId::Store;   // red.add masks mma_c tiles too (LowerAtomics.cpp)
      // Row and column vectors are masked like accumulators, by every dim.
      const bool maskedAccumulator = ft->frag == FragKind::WgmmaAcc || ft->frag == FragKind::TmemAcc;
      if ((maskedAccumulator || ft->isRowOrColVector() || reduction) && ix->base->type && ix->base->type->isTensor() &&
          ix->base->type->space == AddressSpace::Global)
        return;
      std::vector<int64_t> extent;
      if (ix->items.size() == 2 && !ft->isRowOrColVector()) extent = {ft->m, ft->n};
      else if (ft->isRowOrColVector()) {   // the rows (columns) run along the last index
        extent.assign(ix->items.size(), 1);
        extent.back() = ft->isRowVector() ? ft->m : ft->n;
      }
      checkIndex(*ix, reduction ? "'red.add' tile" : "'store' tile", extent);
      return;
    }
    case OpId::CpAsync: {
      // cp.async D <- S valid(c): S is read only where c holds (elsewhere D is zero-filled), so the source
      // is checked under the path condition plus c; the destination is written either way.
      const Expr *valid = nullptr;
      for (auto &c : op.clauses) {
        if (c.name == "valid" && c.args.size() == 1 && c.args[0]) { valid = c.args[0].get(); continue; }
        for (auto &e : c.args) if (e) scanExpr(*e, "load");
      }
      for (auto &e : op.dsts) if (e) scanExpr(*e, "access");
      withCondition(valid, true, [&] {   // scans c too
        zeroFillCond_ = valid;
        for (auto &e : op.srcs) if (e) scanExpr(*e, "access");
        zeroFillCond_ = nullptr;
      });
      return;
    }
    default:
      for (auto &e : op.dsts) if (e) scanExpr(*e, "access");
      for (auto &e : op.srcs) if (e) scanExpr(*e, "access");
      for (auto &c : op.clauses) for (auto &e : c.args) if (e) scanExpr(*e, "load");
      return;
    }
  }

  void scanExpr(const Expr &e, const char *how) {
    switch (e.kind) {
    case ExprKind::Unary: scanExpr(*cast<UnaryExpr>(&e)->operand, "load"); break;
    case ExprKind::Binary:
      scanExpr(*cast<BinaryExpr>(&e)->lhs, "load");
      scanExpr(*cast<BinaryExpr>(&e)->rhs, "load");
      break;
    case ExprKind::Member: scanExpr(*cast<MemberExpr>(&e)->base, how); break;
    case ExprKind::Call: {
      auto &c = *cast<CallExpr>(&e);
      bool atomic = c.callee.rfind("atom.", 0) == 0;   // atom.OP(T[i], ..): T[i] is updated in place
      for (size_t i = 0; i < c.args.size(); ++i)
        if (c.args[i]) scanExpr(*c.args[i], atomic && i == 0 ? "atomic" : "load");
      break;
    }
    case ExprKind::Index: {
      auto &ix = *cast<IndexExpr>(&e);
      for (const IndexItem &it : ix.items) {
        if (it.start) scanExpr(*it.start, "load");
        if (it.length) scanExpr(*it.length, "load");
      }
      scanExpr(*ix.base, how);
      checkIndex(ix, how, {});
      checkAlignment(ix, how);
      break;
    }
    default: break;
    }
  }

  void checkIndex(const IndexExpr &ix, const std::string &how, const std::vector<int64_t> &extent) {
    const Type *bt = ix.base ? ix.base->type : nullptr;
    if (!bt || !bt->isTensor() || bt->space == AddressSpace::Register || bt->groups.empty()) return;
    for (const IndexItem &it : ix.items)
      if (it.kind == IndexItem::Full) return;   // a tile, not a SIMT access
    // A gather (fragment indices) from global memory is masked by the tensor's dims element by element; one
    // from shared memory is checked like a point access, with each fragment coordinate ranging over its tile
    // (ExprToZ3: `F.row` in [0, M), `F.col` in [0, N)).
    if (ix.type && ix.type->isFragment() && bt->space == AddressSpace::Global) return;
    const DimGroup &dims = bt->groups.front();
    if (dims.size() != ix.items.size()) return;
    std::string what = (how == "access" ? std::string("access") : how) + " '" + sourceText(ctx_.diags(), ix.range) + "'";
    for (size_t i = 0; i < ix.items.size(); ++i) {
      const IndexItem &it = ix.items[i];
      if (!it.start) continue;
      int64_t len = 1;
      if (it.kind == IndexItem::Slice) {
        auto *lit = it.length ? dynCast<IntLitExpr>(it.length.get()) : nullptr;
        if (lit) len = static_cast<int64_t>(lit->value);
        else if (it.length) {
          auto l = ctx_.toZ3(*it.length);
          int64_t v = 0;
          if (l && l->simplify().is_numeral_i64(v)) len = v;
        }
      }
      if (i < extent.size()) len = extent[i];
      std::string obligation = "that " + what + " stays inside dimension " + std::to_string(i) + " ('" + dims[i].text + "')";
      checkWrap(*it.start, "index");
      TranslateFailure failure;
      auto start = ctx_.toZ3(*it.start, &failure);
      if (!start) {
        ctx_.reportUnproven(it.start->range, obligation, failure.reason);
        continue;
      }
      std::optional<z3::expr> dim;
      if (dims[i].value) dim = ctx_.z3().int_val(*dims[i].value);
      else if (dims[i].expr) dim = ctx_.toZ3(*dims[i].expr, &failure);
      if (!dim) {
        ctx_.reportUnproven(it.start->range, obligation, failure.reason.empty() ? "the dimension is unknown" : failure.reason);
        continue;
      }
      z3::expr lenZ = ctx_.z3().int_val(len);
      z3::expr claim = *start >= 0 && *start + lenZ <= *dim;
      ProofResult r = ctx_.proveForAll(claim, path_);
      if (r.proven()) { ctx_.recordProven(); continue; }
      if (!r.refuted()) { ctx_.reportUnproven(it.start->range, obligation, r.reason, r.timedOut); continue; }
      if (untranslatedConds_ > 0) {
        ctx_.reportUnproven(it.start->range, obligation,
                            "an enclosing condition could not be modelled (it reads memory or a mutable variable); "
                            "without it the access can leave the tensor (" + r.counterexampleText() + ")");
        continue;
      }
      reportOutOfBounds(ix, it, i, what, dims[i], *start, lenZ, *dim, r);
    }
  }

  // ---------------------------------------------------------------- vector alignment (E0671)
  // Whether the path condition is contradictory: the access sits in a branch no thread takes, such as
  // `if VW == 2 { .. }` in a kernel built with VW = 1, whose vector loads need an alignment the tensor only
  // declares for VW = 2.  Only a proof counts (a timeout keeps the access reachable).
  bool unreachable() {
    return untranslatedConds_ == 0 && ctx_.proveForAll(ctx_.z3().bool_val(false), path_).proven();
  }

  // A vector access of B bytes is one (or, past 16 bytes, several) ld/st.v2/v4 or cp.async instructions whose
  // first needs an address aligned to A = min(16, the largest power of two <= B).  The address is the
  // tensor's base plus sum(index_k * pitch_k) * elementBytes over all dims (row-major pitches, or stride(..);
  // shared arrays: the allocation's offset from the block's shared window, whose swizzle and column blocks
  // keep every 16-byte granule whole).  Proven per term first - by the powers of two its factors carry
  // (TwoAdicFacts: `requires(N % 2 == 0)` makes m * N * 4 a multiple of 8 without a solver query, which for a
  // product of shape variables can run many times its limit), else by the solver (pitch * bytes a multiple of
  // A, or the term itself) - then for the whole sum, which gives the counterexample.
  void checkAlignment(const IndexExpr &ix, const std::string &how) {
    const Type *vt = ix.type;
    if (!vt || !vt->isVector() || vt->width < 2) return;
    std::vector<const IndexExpr *> chain;   // outermost bracket group first
    const Expr *cur = &ix;
    while (auto *x = dynCast<IndexExpr>(cur)) {
      chain.insert(chain.begin(), x);
      cur = x->base.get();
    }
    auto *root = dynCast<NameExpr>(cur);
    if (!root || !root->decl || !root->type || !root->type->isTensor()) return;
    const Type *tt = root->type;
    if (tt->space == AddressSpace::Register) return;
    int64_t elemBytes = tt->element ? tt->element->sizeInBytes().value_or(0) : 0;
    if (elemBytes <= 0) return;
    int64_t bytes = elemBytes * vt->width, align = 1;
    while (align * 2 <= std::min<int64_t>(bytes, 16)) align *= 2;
    if (align <= elemBytes) return;   // element alignment is the base's own
    std::vector<const IndexItem *> items;
    for (const IndexExpr *x : chain)
      for (const IndexItem &it : x->items) items.push_back(&it);
    std::vector<TensorDim> dims = tt->allDims();
    if (items.size() != dims.size()) return;
    for (const IndexItem *it : items)
      if (!it->start) return;

    z3::context &z = ctx_.z3();
    std::string what = (how == "access" ? std::string("access") : how) + " '" + sourceText(ctx_.diags(), ix.range) + "'";
    std::string obligation = "that " + what + " is " + std::to_string(align) + "-byte aligned";
    std::string size = std::to_string(bytes) + "-byte vector access";
    // The base.
    int64_t baseOffset = 0;
    if (root->decl->declKind == DeclKind::Param) {
      auto ti = ctx_.info().tensorParams.find(static_cast<const Param *>(root->decl));
      int64_t declared = ti == ctx_.info().tensorParams.end() ? 0 : ti->second.alignment;
      if (declared < align && !unreachable()) {
        ctx_.reportFailure(DiagKind::MisalignedVectorAccess, ix.range, what,
                           declared ? "'" + root->decl->name + "' is declared align(" + std::to_string(declared) +
                                          "), below the " + std::to_string(align) + " bytes a " + size + " needs"
                                    : "the base of '" + root->decl->name + "' is not declared aligned; a " + size +
                                          " needs " + std::to_string(align) + " bytes")
            .note(root->decl->nameRange, "'" + root->decl->name + "' is declared here")
            .hint("add align(" + std::to_string(align) + ") to '" + root->decl->name +
                  "' (the manifest records it and the runtime refuses a less aligned pointer)");
        return;
      }
    } else if (root->decl->declKind == DeclKind::Shared) {
      const SharedAllocation *a = ctx_.info().sharedOf(static_cast<const SharedStmt *>(root->decl));
      if (!a) return;
      baseOffset = a->offset;
    } else {
      return;
    }
    // Pitches in elements.
    std::vector<std::optional<z3::expr>> pitch(dims.size());
    const TensorParamInfo *tpi = nullptr;
    if (root->decl->declKind == DeclKind::Param)
      if (auto ti = ctx_.info().tensorParams.find(static_cast<const Param *>(root->decl)); ti != ctx_.info().tensorParams.end())
        tpi = &ti->second;
    std::optional<z3::expr> run = z.int_val(1);
    for (size_t k = dims.size(); k-- > 0;) {
      pitch[k] = run;
      if (tpi && !tpi->strides.empty() && k < tpi->strides.size() && tpi->strides[k]) pitch[k] = ctx_.toZ3(*tpi->strides[k]);
      if (!run) continue;
      if (dims[k].value) run = *run * z.int_val(*dims[k].value);
      else if (dims[k].expr) {
        auto d = ctx_.toZ3(*dims[k].expr);
        run = d ? std::optional<z3::expr>(*run * *d) : std::nullopt;
      } else {
        run.reset();
      }
    }
    z3::expr A = z.int_val(align), eb = z.int_val(elemBytes);
    z3::expr offset = z.int_val(baseOffset);
    bool termsProven = baseOffset % align == 0;
    std::vector<z3::expr> facts = ctx_.requirements();
    facts.insert(facts.end(), path_.begin(), path_.end());
    const TwoAdicFacts twoAdic(facts);
    unsigned alignExponent = 0;
    while ((int64_t(1) << alignExponent) < align) ++alignExponent;
    std::vector<z3::expr> terms;
    for (size_t k = 0; k < items.size(); ++k) {
      TranslateFailure failure;
      auto idx = ctx_.toZ3(*items[k]->start, &failure);
      if (!idx || !pitch[k]) {
        ctx_.reportUnproven(items[k]->start->range, obligation,
                            !idx ? failure.reason : "the pitch of dimension " + std::to_string(k) + " cannot be expressed");
        return;
      }
      z3::expr term = *idx * *pitch[k] * eb;
      terms.push_back(term);
      offset = offset + term;
      if (!termsProven || twoAdic.exponent(term) >= alignExponent) continue;
      int64_t pc = 0;
      bool constPitch = pitch[k]->simplify().is_numeral_i64(pc);
      ProofResult r = constPitch ? ctx_.proveForAll(z3::mod(*idx * z.int_val(pc * elemBytes), A) == 0, path_)
                                 : ctx_.proveForAll(z3::mod(*pitch[k] * eb, A) == 0, path_);
      if (!r.proven() && !constPitch) r = ctx_.proveForAll(z3::mod(term, A) == 0, path_);
      termsProven = r.proven();
    }
    if (termsProven) { ctx_.recordProven(); return; }
    ProofResult r = ctx_.proveForAll(z3::mod(offset, A) == 0, path_);
    if (r.proven()) { ctx_.recordProven(); return; }
    if (!r.refuted()) { ctx_.reportUnproven(ix.range, obligation, r.reason, r.timedOut); return; }
    if (untranslatedConds_ > 0) {
      ctx_.reportUnproven(ix.range, obligation,
                          "an enclosing condition could not be modelled (it reads memory or a mutable variable); "
                          "without it the access can be misaligned (" + r.counterexampleText() + ")");
      return;
    }
    int64_t off = 0;
    std::string detail = "its byte offset is not always a multiple of " + std::to_string(align) + " (a " + size + ")";
    try {
      if (r.model && r.model->eval(offset, true).is_numeral_i64(off))
        detail = "its byte offset from the " + std::string(root->decl->declKind == DeclKind::Shared ? "shared window" : "base") +
                 " can be " + std::to_string(off) + ", not a multiple of " + std::to_string(align) + " (a " + size + ")";
    } catch (const z3::exception &) {
    }
    auto diag = ctx_.reportFailure(DiagKind::MisalignedVectorAccess, ix.range, what, detail);
    diag.note(ix.range, "counterexample: " + r.counterexampleText());
    std::string hint = "make the start a multiple of " + std::to_string(align / elemBytes) +
                       " elements and every row pitch a multiple of " + std::to_string(align) + " bytes";
    // A tensor parameter with no stride(..): its row pitches are products that hold its last dim.  When
    // requiring that dim to be a multiple of the vector's elements makes every term of the offset a multiple
    // of the alignment (by the powers of two its factors carry, no solver query), that requirement is the fix-it.
    if (tpi && tpi->strides.empty() && dims.size() >= 2 && !dims.back().value && dims.back().expr) {
      if (auto last = ctx_.toZ3(*dims.back().expr)) {
        const int64_t lanes = align / elemBytes;
        std::vector<z3::expr> withCondition = facts;
        withCondition.push_back(z3::mod(*last, z.int_val(lanes)) == 0);
        const TwoAdicFacts fixedFacts(withCondition);
        bool fixed = true;
        for (const z3::expr &term : terms) fixed = fixed && fixedFacts.exponent(term) >= alignExponent;
        if (fixed) {
          const std::string condition = divisibleBy(dims.back().text, lanes);
          hint += ": add requires(" + condition + ")";
          if (std::optional<FixIt> fix = addRequirement(ctx_.kernel(), condition)) diag.fixit(*fix);
        }
      }
    }
    diag.hint(hint);
  }

  // ---------------------------------------------------------------- wrap-around (E0670)
  struct Narrow {
    const Expr *node;    // the operation whose 32-bit (or 64-bit) result must stay in range
    z3::expr value;      // its mathematical value
    int64_t lo, hi;      // the range of its type
    const char *type;
    std::string label = {};   // the text in the message (default: the node's source text)
    SourceRange at = {};      // where to report (default: the node's range)
    std::string hint = {};    // with a label: the hint (default: a loop bound's)
    std::function<std::optional<FixIt>()> fix = {};   // with a label: the edit that widens it, if any (asked
                                                      // only when it is reported)
  };

  static bool rangeOf(const Type *t, int64_t &lo, int64_t &hi, const char *&name) {
    if (!t || t->kind != TypeKind::Scalar) return false;
    switch (t->scalar) {
    case ScalarKind::I32: lo = INT32_MIN, hi = INT32_MAX, name = "i32"; return true;
    case ScalarKind::U32: lo = 0, hi = UINT32_MAX, name = "u32"; return true;
    case ScalarKind::I64: lo = INT64_MIN, hi = INT64_MAX, name = "i64"; return true;
    default: return false;
    }
  }

  // The operations of e that can leave their type, innermost first, through lets (each let once).  Past
  // kMaxNarrowDepth levels (counting the lets it goes through) it stops and sets `truncated`: the operations
  // below are not collected, so the caller must not call the site proven.
  void collectNarrow(const Expr &e, std::vector<Narrow> &out, std::unordered_set<const Decl *> &seen, unsigned depth,
                     bool &truncated) {
    if (depth > kMaxNarrowDepth) {
      truncated = true;
      return;
    }
    int64_t lo = 0, hi = 0;
    const char *type = nullptr;
    auto add = [&](const Expr &node, const z3::expr *value) {
      if (!rangeOf(node.type, lo, hi, type)) return;
      std::optional<z3::expr> v;
      if (value) v = *value;
      else v = ctx_.toZ3(node);
      if (!v || v->is_bool()) return;
      int64_t c = 0;
      if (v->simplify().is_numeral_i64(c) && c >= lo && c <= hi) return;   // a constant in range
      out.push_back({&node, *v, lo, hi, type});
    };
    switch (e.kind) {
    case ExprKind::Name: {
      const Decl *d = cast<NameExpr>(&e)->decl;
      if (d && d->declKind == DeclKind::Let && seen.insert(d).second)
        if (auto &init = static_cast<const LetStmt *>(d)->init) collectNarrow(*init, out, seen, depth + 1, truncated);
      return;
    }
    case ExprKind::Unary: {
      auto &u = *cast<UnaryExpr>(&e);
      collectNarrow(*u.operand, out, seen, depth + 1, truncated);
      if (u.op == UnaryOp::Neg) add(e, nullptr);
      return;
    }
    case ExprKind::Binary: {
      auto &b = *cast<BinaryExpr>(&e);
      collectNarrow(*b.lhs, out, seen, depth + 1, truncated);
      collectNarrow(*b.rhs, out, seen, depth + 1, truncated);
      if (b.op == BinaryOp::Add || b.op == BinaryOp::Sub || b.op == BinaryOp::Mul || b.op == BinaryOp::Shl ||
          b.op == BinaryOp::Div)   // Div: INT32_MIN / -1
        add(e, nullptr);
      return;
    }
    case ExprKind::Call: {
      auto &c = *cast<CallExpr>(&e);
      for (auto &a : c.args)
        if (a) collectNarrow(*a, out, seen, depth + 1, truncated);
      if (c.args.size() == 1 && (c.callee == "i32" || c.callee == "u32" || c.callee == "i64") && c.args[0] &&
          c.args[0]->type && c.args[0]->type->isInteger())
        add(e, nullptr);   // a conversion keeps the value only if it fits the target type
      return;
    }
    default: return;   // literals, builtins, loads (an index inside a load is its own site)
    }
  }

  std::string nodeText(const Expr &e) { return sourceText(ctx_.diags(), e.range); }

  // budgetMs: the solver limit of the query (0: a share of --verify-timeout, as asked at every site).
  void checkNarrow(const std::vector<Narrow> &nodes, const std::string &site, unsigned budgetMs = 0) {
    z3::context &z = ctx_.z3();
    std::vector<const Narrow *> open;
    bool anyInRange = false;
    for (const Narrow &n : nodes) {
      if (wrapReported_.count(n.node)) continue;
      if (auto r = ctx_.translator().rangeOf(n.value); r && r->lo >= n.lo && r->hi <= n.hi) {
        anyInRange = true;   // in range by its operands' bounds alone: no solver call
        continue;
      }
      open.push_back(&n);
    }
    if (open.empty()) {
      if (anyInRange) ctx_.recordProven();
      return;
    }
    z3::expr claim = z.bool_val(true);
    for (const Narrow *n : open) claim = claim && n->value >= z.int_val(n->lo) && n->value <= z.int_val(n->hi);
    std::string obligation = "that the " + site + " computes the same value in 32-bit arithmetic";
    // A share of the limit: this is asked at every site (unknown is a warning, E0672, below).
    ProofResult r = ctx_.proveForAllWithin(claim, path_,
                                           budgetMs ? budgetMs : std::max(1u, ctx_.timeoutMs() / kWrapBudgetShare));
    if (r.proven()) { ctx_.recordProven(); return; }
    const Narrow &first = *open.front();
    if (!r.refuted()) {
      ctx_.diags().report(DiagKind::IntegerWrapUnproven, first.at.valid() ? first.at : first.node->range, "the " + site,
                          r.timedOut ? "the solver ran out of its share of the limit" : r.reason);
      for (const Narrow *n : open) wrapReported_.insert(n->node);
      return;
    }
    // The first node out of range in the counterexample (innermost first).
    const Narrow *bad = nullptr;
    int64_t v = 0;
    std::string valueText;
    for (const Narrow *n : open) {
      if (!r.model) break;
      z3::expr x = r.model->eval(n->value, true);
      std::string text = x.is_numeral() ? x.get_decimal_string(0) : "";
      bool inRange = true;
      if (x.is_numeral_i64(v)) inRange = v >= n->lo && v <= n->hi;
      else if (!text.empty()) inRange = false;   // past 64 bits
      if (!inRange) {
        bad = n;
        valueText = text;
        break;
      }
    }
    if (!bad) bad = &first;
    wrapReported_.insert(bad->node);
    const SourceRange at = bad->at.valid() ? bad->at : bad->node->range;
    const std::string text = bad->label.empty() ? nodeText(*bad->node) : bad->label;
    if (untranslatedConds_ > 0) {
      ctx_.reportUnproven(at, obligation,
                          "an enclosing condition could not be modelled (it reads memory or a mutable variable); "
                          "without it '" + text + "' can leave " + bad->type + " (" + r.counterexampleText() + ")");
      return;
    }
    const bool above = valueText.empty() || valueText[0] != '-';
    std::string detail = valueText.empty()
        ? "it can leave the range of " + std::string(bad->type)
        : std::string("as ") + bad->type + " it can reach " + valueText + ", " +
              (above ? "past " + std::to_string(bad->hi) : "below " + std::to_string(bad->lo)) +
              " (the GPU computes it modulo 2^" + (std::string(bad->type) == "i64" ? "64" : "32") + ")";
    auto d = ctx_.reportFailure(DiagKind::IntegerWrap, at, text, detail);
    d.note(at, "counterexample: " + r.counterexampleText());
    if (!bad->label.empty()) {
      if (bad->fix)
        if (std::optional<FixIt> fix = bad->fix()) d.fixit(*fix);
      d.hint(!bad->hint.empty() ? bad->hint
                                : "bound the loop so that its variable plus the step stays in " + std::string(bad->type) +
                                      " (e.g. requires(...) on the shapes its bound is computed from)");
      return;
    }
    d.hint("rearrange it so that it stays in range (e.g. 'N - i >= 8' instead of 'i + 8 <= N'), compute it in i64 "
           "(i64(x)), or bound the shape with requires(...)");
  }

  void checkWrap(const Expr &e, const std::string &site) {
    std::vector<Narrow> nodes;
    std::unordered_set<const Decl *> seen;
    bool truncated = false;
    collectNarrow(e, nodes, seen, 0, truncated);
    if (truncated) {
      // Not every operation was looked at: unproven (a warning, like a solver limit), never passed silently.
      ctx_.diags()
          .report(DiagKind::IntegerWrapUnproven, e.range, "the " + site + " '" + nodeText(e) + "'",
                  "it is nested deeper than " + std::to_string(kMaxNarrowDepth) +
                      " levels, counting the lets it uses, which is past what the verifier follows")
          .hint("compute it in fewer steps (a shorter chain of lets)");
      return;
    }
    checkNarrow(nodes, site + " '" + nodeText(e) + "'");
  }

  // The loop variable of the last iteration plus the step must not wrap (else `v < upper` holds again).
  void checkLoopIncrement(const ForStmt &f) {
    int64_t lo = 0, hi = 0;
    const char *type = nullptr;
    if (f.unroll || !rangeOf(static_cast<const Decl &>(f).type, lo, hi, type) || !f.upper) return;   // unrolled: no increment
    ExprToZ3 &t = ctx_.translator();
    z3::expr v = t.declVar(&f);
    std::optional<z3::expr> step = f.step ? ctx_.toZ3(*f.step) : std::optional<z3::expr>(ctx_.z3().int_val(1));
    if (!step || step->is_bool()) return;
    const int64_t n = std::max<int64_t>(f.unrollCount, 1);   // unroll(N) advances N steps at a time
    // A step of 1: the variable is below the bound, a value of its type, so v + 1 cannot pass the maximum.
    if (n == 1 && (!f.step || (dynCast<IntLitExpr>(f.step.get()) && cast<IntLitExpr>(f.step.get())->value == 1))) {
      ctx_.recordProven();
      return;
    }
    std::string stepText = f.step ? nodeText(*f.step) : "1";
    std::string label = f.name + " + " + (n > 1 ? std::to_string(n) + " * " : "") +
                        (f.step && !dynCast<IntLitExpr>(f.step.get()) && !dynCast<NameExpr>(f.step.get()) ? "(" + stepText + ")" : stepText);
    Narrow inc{f.upper.get(), v + ctx_.z3().int_val(n) * *step, lo, hi, type, label, static_cast<const Decl &>(f).nameRange};
    checkNarrow({inc}, "increment of loop '" + f.name + "' ('" + label + "' after the last iteration)");
  }

  // An induction counter's update `x += c`: x after its last update, c0 + c * (iterations of the loops from
  // its declaration to the update, each loop's trip count at its largest), must stay in x's type.
  void checkCounterUpdate(const AssignStmt &a) {
    const Decl *decl = rootDecl(a.target.get());
    const InductionCounter *c = decl ? counters_.find(decl) : nullptr;
    if (!c || c->update != &a || c->step == 0) return;
    auto at = loopsAtDeclaration_.find(decl);
    int64_t lo = 0, hi = 0;
    const char *type = nullptr;
    if (at == loopsAtDeclaration_.end() || !rangeOf(c->decl->type, lo, hi, type)) return;
    z3::context &z = ctx_.z3();
    z3::expr iterations = z.int_val(1);
    // The iterations with each loop whose lower bound is >= 0 counted from 0 and all loops taken to run
    // (bounds > 0, assumed below): the product of the loops' upper bounds (divided by constant steps).
    z3::expr iterationsFromZero = z.int_val(1);
    std::vector<z3::expr> allRun = path_;
    bool anyFromZero = false;
    std::string loopNames;
    for (size_t i = at->second; i < loops_.size(); ++i) {
      TranslateFailure why;
      std::optional<z3::expr> trips = ctx_.tripCount(*loops_[i], &why, /*atMost=*/true);
      if (!trips) {
        ctx_.diags().report(DiagKind::IntegerWrapUnproven, a.range, "the counter '" + decl->name + "'",
                            "the trip count of loop '" + loops_[i]->name + "' cannot be modelled (" + why.reason + ")");
        return;
      }
      iterations = iterations * *trips;
      std::optional<z3::expr> upper = ctx_.toZ3(*loops_[i]->upper);
      std::optional<z3::expr> lower = ctx_.toZ3(*loops_[i]->lower);
      std::optional<z3::expr> step = loops_[i]->step ? ctx_.toZ3(*loops_[i]->step) : z.int_val(1);
      if (upper && lower && step && !upper->is_bool() && !lower->is_bool() && !step->is_bool() &&
          ctx_.proveForAllWithin(*lower >= 0, path_, std::max(1u, ctx_.timeoutMs() / kWrapBudgetShare)).proven()) {
        const z3::expr s = step->simplify();
        int64_t constantStep = 0;
        const bool divide = s.is_numeral_i64(constantStep) && constantStep > 1;
        iterationsFromZero = iterationsFromZero * (divide ? (*upper + s - 1) / s : *upper);
        allRun.push_back(*upper > 0);
        anyFromZero = true;
      } else {
        iterationsFromZero = iterationsFromZero * *trips;
      }
      loopNames += (loopNames.empty() ? "'" : " x '") + loops_[i]->name + "'";
    }
    const std::string label = decl->name + " = " +
                              (c->init ? std::to_string(c->init) + (c->step < 0 ? " - " : " + ") : c->step < 0 ? "-" : "") +
                              std::to_string(std::abs(c->step)) + " x (iterations of " + loopNames + ")";
    const bool narrow = std::string(type) != "i64";
    Narrow last{a.target.get(), z.int_val(c->init) + z.int_val(c->step) * iterations, lo, hi, type, label, a.range,
                "bound the shapes so that the counter's last value stays in " + std::string(type) +
                    " (requires(...) on the product of the loops' trip counts)" + (narrow ? ", or make it an i64" : "")};
    // An i32 counter declared with its type, whose last value fits an i64: the fix-it makes it an i64 (a u32
    // would change signedness too).
    if (std::string(type) == "i32" && c->decl->declaredType && sourceText(ctx_.diags(), c->decl->declaredType->range) == "i32")
      last.fix = [this, value = last.value, typeRange = c->decl->declaredType->range]() -> std::optional<FixIt> {
        z3::context &z = ctx_.z3();
        if (!ctx_.proveForAllWithin(value >= z.int_val(INT64_MIN) && value <= z.int_val(INT64_MAX), path_,
                                    std::max(1u, ctx_.timeoutMs() / kWrapBudgetShare)).proven())
          return std::nullopt;
        return FixIt{typeRange, "i64"};
      };
    // The counter moves away from c0 monotonically, so a bound proven for more iterations holds for these.  Loops
    // counted from 0 first: their product is the form a requires(...) on the product of the loops' bounds states
    // (a persistent tile loop from block.x: 'p in first..tiles' x 'k in 0..k_tiles' against
    // requires(tiles * k_tiles <= ...)), which the solver matches at once, where relating hi - lo to hi through
    // the product took it 200-500 ms.
    // A loop that does not run leaves the counter at c0, a literal of its type.
    if (anyFromZero && c->init >= lo && c->init <= hi) {
      z3::expr value = (z.int_val(c->init) + z.int_val(c->step) * iterationsFromZero).simplify();
      if (ctx_.proveForAllWithin(value >= z.int_val(lo) && value <= z.int_val(hi), allRun,
                                 std::max(1u, ctx_.timeoutMs() / kWrapBudgetShare)).proven()) {
        ctx_.recordProven();
        return;
      }
    }
    // One query per counter (a few per kernel), non-linear in the trip counts: the whole limit.
    checkNarrow({last}, "counter '" + decl->name + "' ('" + label + "' after its last update)", ctx_.timeoutMs());
  }

  void reportOutOfBounds(const IndexExpr &ix, const IndexItem &it, size_t i, const std::string &what,
                         const TensorDim &dimInfo, const z3::expr &start, const z3::expr &len, const z3::expr &dim,
                         const ProofResult &r) {
    // The index and the dimension in the counterexample's own model (so that the message and the note agree).
    int64_t startV = 0, dimV = 0, lenV = 0;
    bool haveValues = false;
    try {
      haveValues = r.model && r.model->eval(start, true).is_numeral_i64(startV) &&
                   r.model->eval(dim, true).is_numeral_i64(dimV) && len.simplify().is_numeral_i64(lenV);
    } catch (const z3::exception &) {
      haveValues = false;
    }
    std::string arrayName = ix.base ? sourceText(ctx_.diags(), ix.base->range) : "?";
    std::string indexText = sourceText(ctx_.diags(), it.start->range);
    std::string detail;
    if (haveValues && startV < 0)
      detail = "index '" + indexText + "' of dimension " + std::to_string(i) + " can be " + std::to_string(startV) + ", below 0";
    else if (haveValues)
      detail = "index '" + indexText + "'" + (lenV > 1 ? " +: " + std::to_string(lenV) : "") + " of dimension " +
               std::to_string(i) + " can reach " + std::to_string(startV + lenV - 1) + ", past '" + dimInfo.text +
               "' = " + std::to_string(dimV);
    else
      detail = "index '" + indexText + "' can leave dimension " + std::to_string(i) + " ('" + dimInfo.text + "')";
    auto d = ctx_.reportFailure(DiagKind::OutOfBoundsAccess, ix.range, what, detail);
    std::string trace = "counterexample: " + r.counterexampleText();
    if (haveValues) {
      std::string pos = std::to_string(startV < 0 ? startV : startV + lenV - 1);
      std::string element = ix.items.size() == 1 ? arrayName + "[" + pos + "]"
                                                 : arrayName + " index " + pos + " in dimension " + std::to_string(i);
      trace += ": " + element + " is " + (startV < 0 ? "before 0" : "past " + dimInfo.text + " = " + std::to_string(dimV));
    }
    d.note(it.start->range, trace);
    if (zeroFillCond_) {
      d.hint("the copy reads its source where 'valid(" + sourceText(ctx_.diags(), zeroFillCond_->range) +
             ")' holds: make that condition imply '0 <= " + indexText + "' and '" + indexText +
             (lenV > 1 ? " + " + std::to_string(lenV) + " <= " : " < ") + dimInfo.text + "'");
      return;
    }
    d.hint(startV < 0 && haveValues ? "guard the access so that the index is never negative"
                                    : "guard the tail (e.g. 'if " + indexText +
                                          (lenV > 1 ? " + " + std::to_string(lenV) + " <= " : " < ") + dimInfo.text +
                                          " { ... }') or add the missing requires(...)");
    if (std::optional<std::pair<std::string, std::string>> guard = boundsGuard(*it.start, start, len, dim, dimInfo.text))
      offerGuard(d, it.start->range, std::move(guard->first), std::move(guard->second));
  }

  // The condition under which an access at `start` +: `len` of a dimension `dim` stays inside it, and its
  // negation, naming only the sides the solver cannot prove on the current path: ("i < N", "i >= N"),
  // ("0 <= i && i <= N - 4", "i < 0 || i > N - 4") (the slice's end is not computed: i + 4 could wrap where
  // the access's own end does not); nullopt when the length is not a constant or the index reads memory (a
  // guard reading it again would not be known to see the same value).
  std::optional<std::pair<std::string, std::string>> boundsGuard(const Expr &index, const z3::expr &start,
                                                                 const z3::expr &len, const z3::expr &dim,
                                                                 const std::string &dimText) {
    int64_t lenV = 0;
    if (!len.simplify().is_numeral_i64(lenV) || readsMemory(index)) return std::nullopt;
    auto operand = [](const std::string &text) {
      return text.find_first_of("<>=&|?") == std::string::npos ? text : "(" + text + ")";
    };
    const std::string at = operand(sourceText(ctx_.diags(), index.range));
    const std::string last = lenV > 1 ? operand(dimText) + " - " + std::to_string(lenV) : operand(dimText);
    const unsigned budget = std::max(1u, ctx_.timeoutMs() / kWrapBudgetShare);
    std::string inside, outside;
    if (!ctx_.proveForAllWithin(start >= 0, path_, budget).proven()) {
      inside = "0 <= " + at;
      outside = at + " < 0";
    }
    if (!ctx_.proveForAllWithin(start + len <= dim, path_, budget).proven()) {
      inside += (inside.empty() ? "" : " && ") + at + (lenV > 1 ? " <= " : " < ") + last;
      outside += (outside.empty() ? "" : " || ") + at + (lenV > 1 ? " > " : " >= ") + last;
    }
    if (inside.empty()) return std::nullopt;
    return std::make_pair(inside, outside);
  }

  // Whether `e` loads from a tensor (directly or through a let).
  static bool readsMemory(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Index: {
      const Type *bt = cast<IndexExpr>(&e)->base ? cast<IndexExpr>(&e)->base->type : nullptr;
      if (bt && bt->isTensor() && bt->space != AddressSpace::Register) return true;
      for (const IndexItem &it : cast<IndexExpr>(&e)->items)
        if ((it.start && readsMemory(*it.start)) || (it.length && readsMemory(*it.length))) return true;
      return false;
    }
    case ExprKind::Name: {
      const Decl *decl = cast<NameExpr>(&e)->decl;
      if (!decl || decl->declKind != DeclKind::Let) return false;
      const auto *let = static_cast<const LetStmt *>(decl);
      return let->init && readsMemory(*let->init);
    }
    case ExprKind::Unary: return readsMemory(*cast<UnaryExpr>(&e)->operand);
    case ExprKind::Binary: return readsMemory(*cast<BinaryExpr>(&e)->lhs) || readsMemory(*cast<BinaryExpr>(&e)->rhs);
    case ExprKind::Member: return readsMemory(*cast<MemberExpr>(&e)->base);
    case ExprKind::Call:
      for (const auto &a : cast<CallExpr>(&e)->args)
        if (a && readsMemory(*a)) return true;
      return false;
    default: return false;
    }
  }

  // An access out of bounds in the simple statement being checked: covered by an early return already offered
  // for the same condition, else its guard waits for the statement's other accesses (asSimple).  Nothing for
  // an access of an inlined fn's body (the statement is not the kernel's).
  void offerGuard(DiagBuilder d, SourceRange access, std::string inside, std::string outside) {
    if (!simple_ || simple_->range.begin.file != access.begin.file) return;
    if (auto offered = returnsOffered_.find(outside); offered != returnsOffered_.end()) {
      d.fixit(offered->second);
      return;
    }
    pending_.push_back({d, std::move(inside), std::move(outside)});
  }
};

} // namespace

void verifySimtBounds(VerifyContext &ctx) { BoundsChecker(ctx).run(); }

} // namespace cake
