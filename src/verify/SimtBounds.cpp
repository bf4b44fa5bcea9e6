// Verifier family: SIMT global and shared accesses in bounds (E0652; E0601 when undecided).
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
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/Builtins.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

namespace cake {

namespace {

class BoundsChecker {
public:
  explicit BoundsChecker(VerifyContext &ctx) : ctx_(ctx) {}

  void run() {
    if (!ctx_.kernel().body) return;
    linkThreadBuiltins(nullptr);
    runBlock(*ctx_.kernel().body);
  }

private:
  VerifyContext &ctx_;
  std::vector<z3::expr> path_;
  unsigned untranslatedConds_ = 0;
  const RoleStmt *role_ = nullptr;
  const Expr *zeroFillCond_ = nullptr;   // while checking the source of `cp.async ... valid(c)`: c

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
    for (auto &s : b.stmts) {
      if (!s) continue;
      runStmt(*s);
      auto *i = dynCast<IfStmt>(s.get());
      if (i && !i->elseBody && i->cond && endsInReturn(i->thenBody.get())) {
        if (auto c = ctx_.toZ3(*i->cond); c && c->is_bool()) path_.push_back(!*c);
        else ++untranslatedConds_;
      }
    }
    path_.resize(mark, ctx_.z3().bool_val(true));
    untranslatedConds_ = dropped;
  }

  void withCondition(const Expr *cond, bool holds, const std::function<void()> &body) {
    size_t mark = path_.size();
    unsigned dropped = untranslatedConds_;
    if (cond) {
      scanExpr(*cond, "load");
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
    case StmtKind::Let: if (auto &e = cast<LetStmt>(&s)->init) scanExpr(*e, "load"); break;
    case StmtKind::Var: if (auto &e = cast<VarStmt>(&s)->init) scanExpr(*e, "load"); break;
    case StmtKind::Assign: {
      auto &a = *cast<AssignStmt>(&s);
      if (a.value) scanExpr(*a.value, "load");
      if (a.target) scanExpr(*a.target, "store");
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
        if (e) scanExpr(*e, "load");
      if (f.body) runBlock(*f.body);
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
      // A wgmma accumulator stored into a global tensor is masked element-wise by the tensor's dims
      // (docs/hopper.md, language.md 13.2 `store`): in bounds by construction, like a TMA store.
      const bool reduction = op.op->id != OpId::Store;   // red.add masks mma_c tiles too (LowerAtomics.cpp)
      // Row vectors are masked like accumulators, by every dim.
      if ((ft->frag == FragKind::WgmmaAcc || ft->isRowVector() || reduction) && ix->base->type && ix->base->type->isTensor() &&
          ix->base->type->space == AddressSpace::Global)
        return;
      std::vector<int64_t> extent;
      if (ix->items.size() == 2 && !ft->isRowVector()) extent = {ft->m, ft->n};
      else if (ft->isRowVector()) {   // the rows run along the last index
        extent.assign(ix->items.size(), 1);
        extent.back() = ft->m;
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
  }
};

} // namespace

void verifySimtBounds(VerifyContext &ctx) { BoundsChecker(ctx).run(); }

} // namespace cake
