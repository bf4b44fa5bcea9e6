// Sema, operations: one checker per OpId of Ops.def.
//
// For every operation statement: the target must have the op (E0402, message from describeArchSet);
// the statement must have the op's form (arrow or none, E0319) and operand counts (E0325); clauses must
// be the op's (E0321), not repeated (E0411), required ones present (E0320), each with one argument;
// clause features have their own arch gates (expect_tx and cta on arrive need sm_90).  Then each
// operand is typed in Operand mode and checked for kind, element type (E0304), address space (E0318)
// and shape (E0326): tma tiles against the tensor map's box and swizzle, cp.async sizes (4/8/16 bytes) and
// its zero-fill condition valid(COND) (a pred, E0311),
// ldmatrix/stmatrix register counts (x1/x2/x4), mma.sync and wgmma fragment shapes and dtypes, wgmma
// operand majorness for f8.  Warpgroup-wide ops (wgmma*) need a warpgroup-aligned role (E0404); block-wide
// barriers (syncthreads, cluster.*) inside a role are E0413.  A failed operand stops the checks that
// depend on it, so one mistake gives one diagnostic.
#include "frontend/SemaImpl.h"

#include <algorithm>
#include <set>

namespace cake {

namespace {

class OpChecker {
public:
  OpChecker(Sema &S, OpStmt &s, const OpInfo &op, const StmtContext &ctx) : S(S), s(s), op(op), ctx(ctx) {}

  void run() {
    switch (op.id) {
    case OpId::TmaLoad: tmaLoad(); break;
    case OpId::TmaStore: tmaStore(); break;
    case OpId::CpAsync: cpAsync(); break;
    case OpId::Ldmatrix: case OpId::LdmatrixTrans: ldmatrix(); break;
    case OpId::Stmatrix: case OpId::StmatrixTrans: stmatrix(); break;
    case OpId::Store: store(); break;
    case OpId::RowArgmin: case OpId::RowArgmax: case OpId::ColArgmin: case OpId::ColArgmax: argReduction(); break;
    case OpId::MmaSync: mmaSync(); break;
    case OpId::Wgmma: wgmma(); break;
    case OpId::WgmmaFence: case OpId::WgmmaCommit: warpgroupOp(); noOperands(); break;
    case OpId::WgmmaWait: warpgroupOp(); waitGroup(7); break;
    case OpId::CpAsyncWait: waitGroup(INT32_MAX); break;
    case OpId::TmaStoreWait: waitGroup(INT32_MAX); break;
    case OpId::TmaStoreCommit: case OpId::CpAsyncCommit: case OpId::FenceProxyAsync: case OpId::FenceMbarrierInit:
      noOperands();
      break;
    case OpId::Syncthreads: case OpId::ClusterSync: case OpId::ClusterArrive: case OpId::ClusterWait:
      blockWide();
      noOperands();
      break;
    case OpId::MbarrierInit: mbarrierInit(); break;
    case OpId::MbarrierExpectTx: mbarrierExpectTx(); break;
    case OpId::Arrive: arrive(); break;
    case OpId::Wait: wait(); break;
    case OpId::Sync: sync(); break;
    case OpId::Syncwarp: syncwarp(); break;
    case OpId::RedAdd: case OpId::RedMin: case OpId::RedMax: case OpId::RedAnd: case OpId::RedOr: case OpId::RedXor:
      clauses({}, {});
      S.analyzeReduction(s, *atomicOpOf(op.id));
      break;
    case OpId::Tcgen05Alloc: case OpId::Tcgen05Dealloc:
      S.info_->usesTcgen05 = true;
      clauses({}, {});
      if (form(OpArrow::None) && count(s.dsts, 1, 1, "tmem array")) S.checkTmemArrayOperand(s, *s.dsts[0]);
      break;
    case OpId::Tcgen05Relinquish: case OpId::Tcgen05WaitLd: case OpId::Tcgen05WaitSt: case OpId::Tcgen05FenceBefore:
    case OpId::Tcgen05FenceAfter:
      S.info_->usesTcgen05 = true;
      noOperands();
      break;
    case OpId::Tcgen05Mma: tcgen05Mma(); break;
    case OpId::Tcgen05Commit:
      S.info_->usesTcgen05 = true;
      clauses({}, {});
      if (form(OpArrow::None) && count(s.dsts, 1, 1, "mbarrier")) singleMBarrier(*s.dsts[0]);
      break;
    case OpId::Tcgen05Ld: case OpId::Tcgen05St: tcgen05Copy(); break;
    case OpId::Count_: break;
    }
  }

private:
  Sema &S;
  OpStmt &s;
  const OpInfo &op;
  const StmtContext &ctx;
  std::string name() const { return std::string(op.spelling); }

  // ---------------------------------------------------------------- generic checks
  void typeAll() {
    for (auto *list : {&s.dsts, &s.srcs})
      for (auto &e : *list)
        if (e && !e->type) S.checkExpr(*e, ExprMode::Operand);
    for (Clause &c : s.clauses)
      for (auto &a : c.args)
        if (a && !a->type) S.checkExpr(*a, ExprMode::Operand);
  }

  bool form(OpArrow expected) {
    if (s.arrow == expected) return true;
    S.diags_.report(DiagKind::BadOperand, s.nameRange, name(), "expected the form '" + std::string(op.form) + "'");
    typeAll();
    return false;
  }

  static SourceRange span(const std::vector<Ptr<Expr>> &list, SourceRange fallback) {
    if (list.empty() || !list.front() || !list.back()) return fallback;
    return SourceRange{list.front()->range.begin, list.back()->range.end};
  }

  bool count(std::vector<Ptr<Expr>> &list, size_t min, size_t max, std::string_view what) {
    for (auto &e : list)
      if (!e) return false;
    if (list.size() >= min && list.size() <= max) return true;
    std::string expected = min == max ? std::to_string(min) : max == SIZE_MAX ? "at least " + std::to_string(min)
                                                                              : std::to_string(min) + " to " + std::to_string(max);
    S.diags_.report(DiagKind::WrongArity, span(list, s.nameRange), name(), expected + " " + std::string(what), list.size())
        .hint("form: " + std::string(op.form));
    typeAll();
    return false;
  }

  // Clause name -> clause, after E0321 / E0411 / E0320 / argument-count checks.
  std::map<std::string, Clause *> clauses(std::initializer_list<std::string_view> allowed,
                                          std::initializer_list<std::string_view> required) {
    std::map<std::string, Clause *> out;
    for (Clause &c : s.clauses) {
      if (std::find(allowed.begin(), allowed.end(), c.name) == allowed.end()) {
        auto d = S.diags_.report(DiagKind::UnexpectedClause, c.nameRange, name(), c.name);
        if (allowed.size() == 0) d.hint(quote(name()) + " takes no clauses");
        for (auto &a : c.args)
          if (a) S.checkExpr(*a, ExprMode::Operand);
        continue;
      }
      auto [it, inserted] = out.emplace(c.name, &c);
      if (!inserted) {
        S.diags_.report(DiagKind::DuplicateClause, c.nameRange, c.name).note(it->second->nameRange, "previous '" + c.name + "' is here");
        continue;
      }
      if (c.args.size() != 1 || !c.args[0]) {
        S.diags_.report(DiagKind::WrongArity, c.range, c.name, 1, c.args.size());
        out.erase(c.name);
        for (auto &a : c.args)
          if (a) S.checkExpr(*a, ExprMode::Operand);
      }
    }
    for (std::string_view r : required)
      if (!out.count(std::string(r)) &&
          std::none_of(s.clauses.begin(), s.clauses.end(), [&](const Clause &c) { return c.name == r; }))
        S.diags_.report(DiagKind::MissingClause, s.nameRange, name(), r);
    return out;
  }

  void noOperands() {
    clauses({}, {});
    size_t n = s.dsts.size() + s.srcs.size();
    if (n != 0 || s.arrow != OpArrow::None) {
      S.diags_.report(DiagKind::WrongArity, span(s.dsts.empty() ? s.srcs : s.dsts, s.nameRange), name(), 0, n)
          .hint("form: " + std::string(op.form));
      typeAll();
    }
  }

  const Type *operand(Expr &e) { return S.checkExpr(e, ExprMode::Operand); }

  const Type *integer(Expr &e, std::string_view what) {
    const Type *t = S.checkExpr(e);
    if (t->isError() || !S.checkInteger(e, what)) return nullptr;
    return S.concretize(e);
  }

  void badOperand(const Expr &e, std::string why) { S.diags_.report(DiagKind::BadOperand, e.range, name(), std::move(why)); }

  // The address space an operand's value comes from (element loads from tensors, tiles, registers).
  std::optional<AddressSpace> spaceOf(Expr &e) {
    if (e.type && e.type->isTensor()) return e.type->space;
    if (auto *ix = dynCast<IndexExpr>(&e))
      if (ix->base && ix->base->type && ix->base->type->isTensor()) return ix->base->type->space;
    if (Decl *d = S.rootDecl(e)) {
      if (d->declKind == DeclKind::Shared) return AddressSpace::Shared;
      if (d->type && d->type->isTensor()) return d->type->space;
    }
    return AddressSpace::Register;
  }

  bool requireSpace(Expr &e, AddressSpace want, std::string_view role) {
    auto sp = spaceOf(e);
    if (sp == want) return true;
    S.diags_.report(DiagKind::WrongAddressSpace, e.range, std::string(role) + " of " + quote(name()),
                    addressSpaceName(want), S.text(e), addressSpaceName(*sp));
    return false;
  }

  // A single mbarrier: full[s] or a non-array mbarrier.
  bool singleMBarrier(Expr &e) {
    const Type *t = operand(e);
    if (t->isError()) return false;
    if (t->kind == TypeKind::MBarrier) return true;
    reportNotSingleMBarrier(e, t);
    return false;
  }
  void reportNotSingleMBarrier(Expr &e, const Type *t) {
    if (t->kind == TypeKind::MBarrierArray) {
      badOperand(e, quote(S.text(e)) + " is an array of " + (t->count ? std::to_string(*t->count) + " " : "") +
                        "mbarriers; index it, e.g. " + S.text(e) + "[s]");
      return;
    }
    badOperand(e, "expected an mbarrier such as full[s], found " + typeToString(t));
  }

  // A shared/global tensor element used as tile coordinates: A[m0, k0].
  struct Coords {
    IndexExpr *index = nullptr;
    const Type *tensor = nullptr;   // the indexed tensor (one bracket group left)
    Decl *root = nullptr;
  };
  std::optional<Coords> coords(Expr &e, std::string_view role) {
    const Type *t = operand(e);
    if (t->isError()) return std::nullopt;
    auto *ix = dynCast<IndexExpr>(&e);
    bool points = ix && std::all_of(ix->items.begin(), ix->items.end(), [](const IndexItem &i) { return i.kind == IndexItem::Point; });
    if (!ix || !points || !ix->base->type || !ix->base->type->isTensor() || t->isTensor()) {
      badOperand(e, std::string(role) + " must be a tensor element such as T[r0, c0] (the tile's first element), found " +
                        typeToString(t));
      return std::nullopt;
    }
    return Coords{ix, ix->base->type, S.rootDecl(e)};
  }

  // A 2-D-or-more shared tile operand (a[s], tile, a[s][r +: 64, :]).
  const Type *sharedTile(Expr &e, std::string_view role) {
    // A TMA tile may be a sub-tile (`b[s][r * 128 +: 128, :]`): slices and ':' select a tile here.
    S.allowTiles_ = true;
    const Type *t = operand(e);
    S.allowTiles_ = false;
    if (t->isError()) return nullptr;
    if (!t->isTensor()) {
      badOperand(e, std::string(role) + " must be a shared tile such as a[s], found " + typeToString(t));
      return nullptr;
    }
    if (t->space != AddressSpace::Shared) {
      requireSpace(e, AddressSpace::Shared, role);
      return nullptr;
    }
    if (t->groups.size() != 1) {
      badOperand(e, std::string(role) + " has type " + typeToString(t) + "; index the outer bracket group first, e.g. " +
                        S.text(e) + "[s]");
      return nullptr;
    }
    return t;
  }

  const SharedAllocation *allocationOf(Expr &e) {
    Decl *d = S.rootDecl(e);
    if (!d || d->declKind != DeclKind::Shared) return nullptr;
    return S.info_->sharedOf(static_cast<const SharedStmt *>(d));
  }

  static std::vector<int64_t> dimValues(const Type *t) {
    std::vector<int64_t> v;
    for (const TensorDim &d : t->allDims()) v.push_back(d.value.value_or(-1));
    return v;
  }
  static std::string dimsText(const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i] < 0 ? std::string("?") : std::to_string(v[i]));
    return s + "]";
  }

  void elementsMatch(Expr &at, ScalarKind a, ScalarKind b, const std::string &ctxText) {
    if (a != b)
      S.diags_.report(DiagKind::TypeMismatch, at.range, scalarName(a), scalarName(b), ctxText);
  }

  // ---------------------------------------------------------------- role placement
  void warpgroupOp() {
    if (const RoleInfo *ri = S.currentRoleInfo(ctx)) {
      if (ri->rangeKnown && !ri->warpgroupAligned())
        S.diags_.report(DiagKind::RoleMisaligned, s.nameRange, quote(name()), ri->name,
                        std::to_string(ri->firstWarp) + ".." + std::to_string(ri->endWarp) +
                            (ri->instances > 1 ? " in " + std::to_string(ri->instances) + " instances" : ""))
            .hint("declare the role with warpgroup(..) or warpgroups(..)");
    } else if (!ctx.role && S.info_->threads > 0 && S.info_->threads % 128 != 0) {
      S.diags_.report(DiagKind::BarrierUnderRole, s.nameRange,
                      quote(name()) + " outside any role runs on all " + std::to_string(S.info_->threads) +
                          " threads of the block, which are not whole warpgroups (a multiple of 128 threads)");
    }
  }

  void blockWide() {
    if (!ctx.role) return;
    S.diags_.report(DiagKind::BarrierUnderRole, s.nameRange,
                    quote(name()) + " inside role " + quote(ctx.role->name) +
                        " is reached only by the role's warps, but it waits for every thread of the " +
                        (op.id == OpId::Syncthreads ? "block" : "cluster"))
        .hint(op.id == OpId::Syncthreads ? "synchronise a subset of warps with a named barrier: barrier NAME id(n) threads(n); sync NAME;"
                                         : "issue cluster barriers outside roles");
  }

  // ---------------------------------------------------------------- operations
  void waitGroup(int64_t max) {
    clauses({}, {});
    if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "count")) return;
    if (auto v = S.constInt(*s.dsts[0], "the number of pending groups")) {
      S.adaptUntyped(*s.dsts[0], S.types_.i32());
      if (*v < 0 || *v > max)
        badOperand(*s.dsts[0], "the number of pending groups must be in 0.." + std::to_string(max) + ", not " + std::to_string(*v));
    }
  }

  void tmaLoad() {
    auto cl = clauses({"signal", "multicast"}, {"signal"});
    if (auto it = cl.find("signal"); it != cl.end()) singleMBarrier(*it->second->args[0]);
    if (auto it = cl.find("multicast"); it != cl.end()) {
      Expr &mask = *it->second->args[0];
      if (integer(mask, "a multicast mask") && !(S.info_->hasCluster && S.info_->cluster[0] * S.info_->cluster[1] * S.info_->cluster[2] > 1))
        S.diags_.report(DiagKind::BadOperand, it->second->nameRange, name(), "multicast(...) needs a cluster(...) launch of more than one CTA");
    }
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
    const Type *dst = sharedTile(*s.dsts[0], "the destination");
    auto src = coords(*s.srcs[0], "the source");
    if (!dst || !src) return;
    tmaTile(*s.dsts[0], dst, *s.srcs[0], *src, "tile");
  }

  void tmaStore() {
    clauses({}, {});
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
    auto dst = coords(*s.dsts[0], "the destination");
    const Type *src = sharedTile(*s.srcs[0], "the source");
    if (!dst || !src) return;
    tmaTile(*s.srcs[0], src, *s.dsts[0], *dst, "tile");
  }

  // Checks shared `tile` against the tensor map of the global tensor addressed by `coords`.
  void tmaTile(Expr &tileExpr, const Type *tile, Expr &globalExpr, Coords &c, std::string_view) {
    if (c.tensor->space != AddressSpace::Global) {
      requireSpace(globalExpr, AddressSpace::Global, "the tensor");
      return;
    }
    elementsMatch(tileExpr, tile->elementScalar(), c.tensor->elementScalar(), name());
    const TensorParamInfo *ti = nullptr;
    if (c.root && c.root->declKind == DeclKind::Param) ti = S.info_->tensorParamOf(static_cast<const Param *>(c.root));
    if (!ti || !ti->tma) {
      auto d = S.diags_.report(DiagKind::BadOperand, globalExpr.range, name(),
                               quote(c.root ? c.root->name : S.text(globalExpr)) + " has no tensor map: declare it with tma(box=[...])");
      if (c.root) d.note(c.root->nameRange, "parameter " + quote(c.root->name) + " is declared here");
      return;
    }
    if (ti->box.empty()) return;   // the tma attribute itself was invalid and reported
    // The tile matches the box, or the box without its dims of size 1 (a rank-4 box [1, 1, BT, D] fills a
    // [BT, D] tile).
    std::vector<int64_t> dims = dimValues(tile), squeezed;
    for (int64_t b : ti->box)
      if (b != 1) squeezed.push_back(b);
    if (squeezed.empty()) squeezed.push_back(1);
    if (dims != ti->box && dims != squeezed)
      S.diags_.report(DiagKind::ShapeMismatch, tileExpr.range, name(),
                      "the shared tile " + quote(S.text(tileExpr)) + " is " + dimsText(dims) + " but the box of " +
                          quote(c.root->name) + " is " + dimsText(ti->box) +
                          (squeezed != ti->box ? " (" + dimsText(squeezed) + " without its dims of size 1)" : ""));
    else columnBlock(tileExpr, tile);
    if (const SharedAllocation *a = allocationOf(tileExpr); a && a->swizzleBytes != ti->swizzleBytes) {
      auto mode = [](int64_t b) { return b ? std::to_string(b) + "B" : std::string("none"); };
      S.diags_.report(DiagKind::BadOperand, tileExpr.range, name(),
                      quote(a->decl->name) + " has swizzle(" + mode(a->swizzleBytes) + ") but the tensor map of " +
                          quote(c.root->name) + " uses swizzle=" + mode(ti->swizzleBytes));
    }
  }

  // A TMA tile of a column-blocked array (rows wider than the swizzle span) must be one whole column block:
  // a column slice one span wide starting at a constant multiple of the block width (E0356).
  void columnBlock(Expr &tileExpr, const Type *tile) {
    const SharedAllocation *a = allocationOf(tileExpr);
    if (!a || !a->swizzleBytes || !a->decl->type || !a->decl->type->isTensor()) return;
    const Type *arr = a->decl->type;
    const int64_t eb = arr->element->sizeInBytes().value_or(0);
    const int64_t cols = arr->groups.back().back().value.value_or(0);
    if (eb <= 0 || cols * eb <= a->swizzleBytes) return;
    const int64_t w = a->swizzleBytes / eb;
    std::vector<int64_t> dims = dimValues(tile);
    auto report = [&](const std::string &why) {
      S.diags_.report(DiagKind::TmaColumnBlock, tileExpr.range, S.text(tileExpr), a->decl->name, why)
          .hint("copy one block per tma.load: " + a->decl->name + "[..][:, " + std::to_string(w) + " * j +: " +
                std::to_string(w) + "] with a box " + std::to_string(w) + " elements wide");
    };
    if (dims.empty() || dims.back() != w) {
      report("it is " + std::to_string(dims.empty() ? 0 : dims.back()) + " columns wide, a block is " + std::to_string(w) +
             " (" + std::to_string(a->swizzleBytes) + " bytes)");
      return;
    }
    // The innermost index item (the column): a constant start must be a multiple of w.
    const Expr *cur = &tileExpr;
    const IndexItem *last = nullptr;
    size_t seen = 0, total = arr->allDims().size();
    std::vector<const IndexExpr *> chain;
    while (const auto *ix = dynCast<IndexExpr>(cur)) { chain.push_back(ix); cur = ix->base.get(); }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it)
      for (const auto &item : (*it)->items) { ++seen; if (seen == total) last = &item; }
    if (!last || !last->start) return;   // the whole dim: only when it is one block, handled above
    ConstResult c = S.constEval_.evaluate(*last->start);
    if (c.ok() && c.value % w != 0)
      report("its first column " + std::to_string(c.value) + " is not a multiple of the block width " + std::to_string(w));
  }

  // cp.async DST <- SRC [valid(COND)]: COND is a pred; where it is false nothing is read and DST is zero-filled.
  void cpAsync() {
    auto cl = clauses({"valid"}, {});
    if (auto it = cl.find("valid"); it != cl.end()) {
      Expr &cond = *it->second->args[0];
      if (!S.checkExpr(cond)->isError()) S.checkPred(cond, "the condition of 'valid(...)'");
    }
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
    const Type *dt = operand(*s.dsts[0]);
    const Type *st = operand(*s.srcs[0]);
    if (dt->isError() || st->isError()) return;
    bool okD = dt->isScalar() || dt->isVector(), okS = st->isScalar() || st->isVector();
    if (!okD) badOperand(*s.dsts[0], "the destination must be shared elements such as as[s][r, c +: 8], found " + typeToString(dt));
    if (!okS) badOperand(*s.srcs[0], "the source must be global elements such as A[r, c +: 8], found " + typeToString(st));
    if (!okD || !okS) return;
    bool spaces = requireSpace(*s.dsts[0], AddressSpace::Shared, "the destination");
    spaces &= requireSpace(*s.srcs[0], AddressSpace::Global, "the source");
    if (!spaces) return;
    if (dt->scalar != st->scalar) {
      S.diags_.report(DiagKind::TypeMismatch, s.range, typeToString(dt), typeToString(st), name());
      return;
    }
    if (dt->width != st->width) {
      S.diags_.report(DiagKind::ShapeMismatch, s.range, name(),
                      "the destination has " + std::to_string(dt->width) + " elements but the source " + std::to_string(st->width));
      return;
    }
    int64_t bytes = dt->sizeInBytes().value_or(0);
    if (bytes != 4 && bytes != 8 && bytes != 16)
      S.diags_.report(DiagKind::ShapeMismatch, s.dsts[0]->range, name(),
                      "cp.async copies 4, 8 or 16 bytes, but " + typeToString(dt) + " is " + std::to_string(bytes) + " bytes");
  }

  // Fragments for ldmatrix/stmatrix: 16-bit dtype; returns the total 32-bit registers, or -1.
  int64_t matrixFragments(std::vector<Ptr<Expr>> &list, bool written, ScalarKind *dtype) {
    int64_t regs = 0;
    bool ok = true;
    std::optional<ScalarKind> first;
    for (auto &e : list) {
      const Type *t = operand(*e);
      if (t->isError()) { ok = false; continue; }
      if (!t->isFragment()) {
        badOperand(*e, "expected a fragment, found " + typeToString(t));
        ok = false;
        continue;
      }
      if (scalarBits(t->scalar) != 16) {
        badOperand(*e, name() + " moves 16-bit elements; " + quote(S.text(*e)) + " holds " + std::string(scalarName(t->scalar)));
        ok = false;
        continue;
      }
      if (first && *first != t->scalar) {
        S.diags_.report(DiagKind::TypeMismatch, e->range, scalarName(*first), scalarName(t->scalar), name());
        ok = false;
      }
      first = t->scalar;
      if (written && !S.checkAssignable(*e)) ok = false;
      regs += t->fragRegistersPerThread();
    }
    if (!ok || !first) return -1;
    *dtype = *first;
    if (regs != 1 && regs != 2 && regs != 4) {
      S.diags_.report(DiagKind::ShapeMismatch, span(list, s.nameRange), name(),
                      "the fragments hold " + std::to_string(regs) + " 32-bit registers per thread; " + name() +
                          " moves 1, 2 or 4 8x8 matrices (x1/x2/x4)");
      return -1;
    }
    return regs;
  }

  // A row of 8 16-bit elements in shared memory: a[s][r, c +: 8].
  bool matrixRow(Expr &e, ScalarKind dtype) {
    const Type *t = operand(e);
    if (t->isError()) return false;
    if (!(t->isVector() && t->width == 8 && scalarBits(t->scalar) == 16)) {
      badOperand(e, "expected a row of 8 16-bit elements in shared memory such as a[s][r, c +: 8], found " + typeToString(t));
      return false;
    }
    if (!requireSpace(e, AddressSpace::Shared, "the row")) return false;
    elementsMatch(e, t->scalar, dtype, name());
    return true;
  }

  void ldmatrix() {
    clauses({}, {});
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 4, "destination(s)") || !count(s.srcs, 1, 1, "source")) return;
    ScalarKind dtype{};
    int64_t regs = matrixFragments(s.dsts, /*written=*/true, &dtype);
    if (regs < 0) { operand(*s.srcs[0]); return; }
    matrixRow(*s.srcs[0], dtype);
  }

  void stmatrix() {
    clauses({}, {});
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 4, "source(s)")) return;
    ScalarKind dtype{};
    int64_t regs = matrixFragments(s.srcs, /*written=*/false, &dtype);
    if (regs < 0) { operand(*s.dsts[0]); return; }
    matrixRow(*s.dsts[0], dtype);
  }

  void store() {
    clauses({}, {});
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
    auto dst = coords(*s.dsts[0], "the destination");
    const Type *src = accumulatorColumns(*s.srcs[0]);
    if (!dst || src->isError()) return;
    if (dst->tensor->space == AddressSpace::Register) {
      S.diags_.report(DiagKind::WrongAddressSpace, s.dsts[0]->range, "the destination of 'store'", "global or shared",
                      S.text(*s.dsts[0]), "register");
      return;
    }
    if (!src->isAccLayout() && !src->isRowOrColVector()) {
      badOperand(*s.srcs[0], "store writes accumulator fragments (mma_c, wgmma_acc), row and column vectors at their lane layout; found " +
                                 typeToString(src) + " (use an assignment for scalars and vectors)");
      return;
    }
    if (!dst->tensor->element->isScalar()) {
      badOperand(*s.dsts[0], "the destination tensor must have scalar elements, not " + typeToString(dst->tensor->element));
      return;
    }
    ScalarKind de = dst->tensor->element->scalar;
    if (de != src->scalar) {
      auto d = S.diags_.report(DiagKind::TypeMismatch, s.srcs[0]->range, scalarName(de), scalarName(src->scalar), name());
      if (isFloatScalar(de)) {
        std::string conv(scalarName(de));
        Expr &e = *s.srcs[0];
        d.hint("convert the fragment: " + conv + "(" + S.text(e) + ")")
            .fixit(SourceRange{e.range.begin, e.range.begin.offset}, conv + "(")
            .fixit(SourceRange{{e.range.begin.file, e.range.end}, e.range.end}, ")");
      }
    }
  }

  // rowargmin VALUE, INDEX <- FRAG: row vectors of the minimum (maximum) and its column; colargmin /
  // colargmax: column vectors of the minimum (maximum) and its row.
  void argReduction() {
    const bool column = s.op->id == OpId::ColArgmin || s.op->id == OpId::ColArgmax;
    clauses({}, {});
    if (!form(OpArrow::Move) || !count(s.dsts, 2, 2, "destinations (value, index)") || !count(s.srcs, 1, 1, "source")) return;
    const Type *src = operand(*s.srcs[0]);
    const Type *v = operand(*s.dsts[0]);
    const Type *i = operand(*s.dsts[1]);
    if (src->isError() || v->isError() || i->isError()) return;
    if (S.refuseTmemFragment(src, s.srcs[0]->range, quote(name()))) return;
    if (!src->isAccLayout() || !(src->scalar == ScalarKind::F32 || src->scalar == ScalarKind::I32 || src->scalar == ScalarKind::U32)) {
      badOperand(*s.srcs[0], name() + " reduces an accumulator fragment (mma_c, wgmma_acc) of f32, i32 or u32; found " +
                                 typeToString(src));
      return;
    }
    const Type *rowT = S.reducedVectorType(src, column);
    const Type *idxT = S.types_.withElement(rowT, ScalarKind::I32);
    if (!sameType(v, rowT)) {
      S.diags_.report(DiagKind::TypeMismatch, s.dsts[0]->range, typeToString(rowT), typeToString(v), name());
      return;
    }
    if (!sameType(i, idxT)) {
      S.diags_.report(DiagKind::TypeMismatch, s.dsts[1]->range, typeToString(idxT), typeToString(i), name());
      return;
    }
    S.checkAssignable(*s.dsts[0]);
    S.checkAssignable(*s.dsts[1]);
  }

  // The source of `store`: a fragment, or a column slice of a wgmma accumulator, `F[:, c0 +: n]` (F the
  // accumulator or its conversion): the columns c0 .. c0+n-1 of all 64 rows, a wgmma_acc fragment 64 x n.
  // n is a constant multiple of 8; c0 a multiple of 8 with c0 + n <= N, checked here when it is a constant
  // and by code generation after unrolling otherwise (E0358).
  const Type *accumulatorColumns(Expr &e) {
    auto *ix = dynCast<IndexExpr>(&e);
    if (!ix) return operand(e);
    const Type *bt = S.checkExpr(*ix->base, ExprMode::Operand);
    if (bt->isError() || !bt->isFragment()) return operand(e);
    auto bad = [&](const std::string &why) {
      S.diags_.report(DiagKind::AccumulatorColumnSlice, ix->range, why)
          .hint("write F[:, 64 * j +: 64] for columns 64j .. 64j+63 of a wgmma accumulator F");
      e.type = S.types_.error();
      return e.type;
    };
    if (bt->frag != FragKind::WgmmaAcc) return bad(quote(S.text(*ix->base)) + " is a " + typeToString(bt) + ", not a wgmma_acc");
    if (ix->items.size() != 2 || ix->items[0].kind != IndexItem::Full || ix->items[1].kind != IndexItem::Slice)
      return bad("the slice takes every row and a column range: [:, c0 +: n]");
    IndexItem &cols = ix->items[1];
    const Type *st = S.checkExpr(*cols.start);
    if (st->isError() || !S.checkInteger(*cols.start, "a column")) return e.type = S.types_.error();
    S.concretize(*cols.start);
    auto n = S.constInt(*cols.length, "a slice length");
    if (!n) return e.type = S.types_.error();
    S.adaptUntyped(*cols.length, S.types_.i32());
    if (*n <= 0 || *n % 8 != 0 || *n > bt->n)
      return bad("the length " + std::to_string(*n) + " is not a positive multiple of 8 up to N = " + std::to_string(bt->n));
    ConstResult c0 = S.constEval_.evaluate(*cols.start);
    if (c0.ok() && (c0.value < 0 || c0.value % 8 != 0 || c0.value + *n > bt->n))
      return bad("columns " + std::to_string(c0.value) + " +: " + std::to_string(*n) + " are not 8-column groups inside N = " +
                 std::to_string(bt->n));
    e.type = S.types_.fragment(FragKind::WgmmaAcc, bt->scalar, bt->m, *n, bt->k);
    return e.type;
  }

  // `A * B` of mma.sync / wgmma: returns the multiplication, or null (reported).
  BinaryExpr *product() {
    auto *mul = dynCast<BinaryExpr>(s.srcs[0].get());
    if (!mul || mul->op != BinaryOp::Mul) {
      badOperand(*s.srcs[0], "expected 'A * B'; form: " + std::string(op.form));
      operand(*s.srcs[0]);
      return nullptr;
    }
    return mul;
  }

  const Type *accumulator(FragKind kind) {
    const Type *acc = operand(*s.dsts[0]);
    if (acc->isError()) return nullptr;
    if (!acc->isFragment() || acc->frag != kind) {
      badOperand(*s.dsts[0], "the accumulator must be a " + std::string(fragKindName(kind)) + " fragment, found " + typeToString(acc));
      return nullptr;
    }
    if (acc->scalar != ScalarKind::F32 && acc->scalar != ScalarKind::F16) {
      badOperand(*s.dsts[0], "tensor cores accumulate in f32 or f16, not " + std::string(scalarName(acc->scalar)));
      return nullptr;
    }
    if (!S.checkAssignable(*s.dsts[0])) return nullptr;
    return acc;
  }

  void mmaSync() {
    clauses({}, {});
    if (!form(OpArrow::Accumulate) || !count(s.dsts, 1, 1, "accumulator") || !count(s.srcs, 1, 1, "product")) return;
    const Type *acc = accumulator(FragKind::MmaC);
    BinaryExpr *mul = product();
    if (!mul) return;
    const Type *a = operand(*mul->lhs);
    const Type *b = operand(*mul->rhs);
    mul->type = acc ? acc : S.types_.error();
    if (!acc || a->isError() || b->isError()) return;
    bool ok = true;
    // A converted accumulator tile (bf16(c) of an mma_c 16 x 8) is the A operand of an m16n8k8 mma: the
    // accumulator layout of 8 columns is the k8 A layout.
    if (a->isFragment() && a->frag == FragKind::MmaC) {
      if (acc->k != 8 || !(a->scalar == ScalarKind::BF16 || a->scalar == ScalarKind::F16)) {
        badOperand(*mul->lhs, "an mma_c tile used as A must be converted to bf16 / f16 (bf16(c)) and feed an m16n8k8 "
                              "accumulator (K = 8)");
        return;
      }
      if (!b->isFragment() || b->frag != FragKind::MmaB || b->k != 8) {
        badOperand(*mul->rhs, "B must be an m16n8k8 mma_b fragment, found " + typeToString(b));
        return;
      }
      if (a->scalar != b->scalar) S.diags_.report(DiagKind::TypeMismatch, mul->range, scalarName(a->scalar), scalarName(b->scalar), name());
      return;
    }
    if (!a->isFragment() || a->frag != FragKind::MmaA) { badOperand(*mul->lhs, "A must be an mma_a fragment, found " + typeToString(a)); ok = false; }
    if (!b->isFragment() || b->frag != FragKind::MmaB) { badOperand(*mul->rhs, "B must be an mma_b fragment, found " + typeToString(b)); ok = false; }
    if (!ok) return;
    auto shape = [](const Type *t) { return "m" + std::to_string(t->m) + "n" + std::to_string(t->n) + "k" + std::to_string(t->k); };
    for (auto [t, e, what] : {std::tuple{a, mul->lhs.get(), "A"}, std::tuple{b, mul->rhs.get(), "B"}})
      if (t->m != acc->m || t->n != acc->n || t->k != acc->k) {
        S.diags_.report(DiagKind::ShapeMismatch, e->range, name(),
                        std::string(what) + " is " + shape(t) + " but the accumulator is " + shape(acc));
        return;
      }
    if (a->scalar != b->scalar) {
      S.diags_.report(DiagKind::TypeMismatch, mul->range, scalarName(a->scalar), scalarName(b->scalar), name());
      return;
    }
    if (acc->scalar == ScalarKind::F16 && a->scalar != ScalarKind::F16)
      badOperand(*s.dsts[0], std::string(scalarName(a->scalar)) + " inputs accumulate in f32, not f16");
  }

  // tcgen05.mma D += A * B [accumulate(P)]: the operands' rules are SemaTcgen05.cpp's.
  void tcgen05Mma() {
    S.info_->usesTcgen05 = true;
    auto cl = clauses({"accumulate"}, {});
    if (!form(OpArrow::Accumulate) || !count(s.dsts, 1, 1, "accumulator") || !count(s.srcs, 1, 1, "product")) return;
    if (auto it = cl.find("accumulate"); it != cl.end()) {
      const Type *p = operand(*it->second->args[0]);
      if (!p->isError() && !p->isPred()) S.checkPred(*it->second->args[0], "accumulate(..)");
    }
    S.allowTiles_ = true;
    const Type *d = operand(*s.dsts[0]);
    S.allowTiles_ = false;
    BinaryExpr *mul = product();
    if (!mul) return;
    S.allowTiles_ = S.allowTranspose_ = true;
    const Type *a = operand(*mul->lhs);
    const Type *b = operand(*mul->rhs);
    S.allowTiles_ = S.allowTranspose_ = false;
    mul->type = d;
    if (d->isError() || a->isError() || b->isError()) return;
    S.checkTcgen05Mma(s, *mul, d, a, b);
  }

  // tcgen05.ld FRAG <- TILE / tcgen05.st TILE <- FRAG.
  void tcgen05Copy() {
    S.info_->usesTcgen05 = true;
    clauses({}, {});
    if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
    const bool load = op.id == OpId::Tcgen05Ld;
    Expr &fragExpr = load ? *s.dsts[0] : *s.srcs[0];
    Expr &tileExpr = load ? *s.srcs[0] : *s.dsts[0];
    const Type *frag = operand(fragExpr);
    S.allowTiles_ = true;
    const Type *tile = operand(tileExpr);
    S.allowTiles_ = false;
    if (frag->isError() || tile->isError()) return;
    if (load && !S.checkAssignable(fragExpr)) return;
    S.checkTcgen05Copy(s, fragExpr, frag, tileExpr, tile);
  }

  void wgmma() {
    warpgroupOp();
    S.info_->usesWgmma = true;
    clauses({}, {});
    if (!form(OpArrow::Accumulate) || !count(s.dsts, 1, 1, "accumulator") || !count(s.srcs, 1, 1, "product")) return;
    const Type *acc = accumulator(FragKind::WgmmaAcc);
    BinaryExpr *mul = product();
    if (!mul) return;
    S.allowTiles_ = S.allowTranspose_ = true;
    const Type *a = operand(*mul->lhs);
    const Type *b = operand(*mul->rhs);
    S.allowTiles_ = S.allowTranspose_ = false;
    mul->type = acc ? acc : S.types_.error();
    if (!acc || a->isError() || b->isError()) return;

    bool ok = true;
    bool aFrag = a->isFragment();
    // A converted accumulator (bf16(p) of a wgmma_acc [64, Kp]) is an A operand in registers with K = Kp:
    // the accumulator layout of 16 columns is the wgmma_a layout of one k16 step.
    bool aFromAcc = aFrag && a->frag == FragKind::WgmmaAcc;
    if (aFromAcc && !(a->scalar == ScalarKind::BF16 || a->scalar == ScalarKind::F16)) {
      badOperand(*mul->lhs, "an accumulator used as A must be converted to the input type first: bf16(" + S.text(*mul->lhs) + ")");
      ok = false;
    } else if (aFrag && !aFromAcc && a->frag != FragKind::WgmmaA) {
      badOperand(*mul->lhs, "A must be a shared tile [64, K] or a wgmma_a fragment, found " + typeToString(a));
      ok = false;
    } else if (!aFrag && !(a->isTensor() && a->groups.size() == 1 && a->groups[0].size() == 2)) {
      badOperand(*mul->lhs, "A must be a shared tile [64, K] or a wgmma_a fragment, found " + typeToString(a));
      ok = false;
    } else if (!aFrag && a->space != AddressSpace::Shared) {
      requireSpace(*mul->lhs, AddressSpace::Shared, "A");
      ok = false;
    }
    if (!(b->isTensor() && b->groups.size() == 1 && b->groups[0].size() == 2)) {
      badOperand(*mul->rhs, "B must be a shared tile [K, N] (for a tile stored [N, K] write " + S.text(*mul->rhs) +
                                ".T), found " + typeToString(b));
      ok = false;
    } else if (b->space != AddressSpace::Shared) {
      requireSpace(*mul->rhs, AddressSpace::Shared, "B");
      ok = false;
    }
    if (!ok) return;

    ScalarKind ea = a->elementScalar(), eb = b->elementScalar();
    if (ea != eb && !(isF8Scalar(ea) && isF8Scalar(eb))) {
      S.diags_.report(DiagKind::TypeMismatch, mul->range, scalarName(ea), scalarName(eb), name());
      return;
    }
    bool f8 = isF8Scalar(ea);
    int64_t instrK = f8 ? 32 : 16;
    if (acc->k != instrK) {
      S.diags_.report(DiagKind::ShapeMismatch, s.dsts[0]->range, name(),
                      std::string(scalarName(ea)) + " inputs need an accumulator with K = " + std::to_string(instrK) +
                          ", but it has K = " + std::to_string(acc->k));
      return;
    }
    if (acc->scalar == ScalarKind::F16 && ea == ScalarKind::BF16) {
      badOperand(*s.dsts[0], "bf16 inputs accumulate in f32, not f16");
      return;
    }
    std::vector<int64_t> bd = dimValues(b);   // [K, N]
    int64_t kA, mA;
    if (aFromAcc) {
      mA = a->m;
      kA = a->n;
    } else if (aFrag) {
      mA = a->m;
      kA = a->k;
      if (a->n != acc->n) {
        S.diags_.report(DiagKind::ShapeMismatch, mul->lhs->range, name(),
                        "the A fragment has N = " + std::to_string(a->n) + " but the accumulator has N = " + std::to_string(acc->n));
        return;
      }
    } else {
      std::vector<int64_t> ad = dimValues(a);   // [M, K]
      mA = ad[0];
      kA = ad[1];
    }
    if (mA != acc->m) {
      S.diags_.report(DiagKind::ShapeMismatch, mul->lhs->range, name(),
                      "A has " + std::to_string(mA) + " rows but wgmma computes " + std::to_string(acc->m) + " rows (M = 64)");
      return;
    }
    if (kA != bd[0]) {
      S.diags_.report(DiagKind::ShapeMismatch, mul->range, name(),
                      "A has K = " + std::to_string(kA) + " but B has K = " + std::to_string(bd[0]));
      return;
    }
    if (bd[1] != acc->n) {
      S.diags_.report(DiagKind::ShapeMismatch, mul->rhs->range, name(),
                      "B has N = " + std::to_string(bd[1]) + " but the accumulator has N = " + std::to_string(acc->n));
      return;
    }
    if (kA <= 0 || kA % instrK != 0) {
      S.diags_.report(DiagKind::ShapeMismatch, mul->range, name(),
                      "K = " + std::to_string(kA) + " is not a multiple of the instruction's K = " + std::to_string(instrK));
      return;
    }
    if (f8) {
      if (!aFrag && a->transposed)
        badOperand(*mul->lhs, "f8 wgmma reads A K-major: use the tile stored [64, K] without .T");
      if (!b->transposed)
        badOperand(*mul->rhs, "f8 wgmma reads B K-major: store the tile as [N, K] and write " + S.text(*mul->rhs) + ".T");
    }
  }

  void mbarrierInit() {
    clauses({}, {});
    if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "mbarrier")) return;
    const Type *t = operand(*s.dsts[0]);
    if (t->isError()) return;
    if (t->kind != TypeKind::MBarrier && t->kind != TypeKind::MBarrierArray)
      badOperand(*s.dsts[0], "expected an mbarrier, found " + typeToString(t));
  }

  void mbarrierExpectTx() {
    clauses({}, {});
    if (!form(OpArrow::None) || !count(s.dsts, 2, 2, "operands (mbarrier, bytes)")) return;
    singleMBarrier(*s.dsts[0]);
    integer(*s.dsts[1], "a transaction byte count");
  }

  void arrive() {
    if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "barrier")) { clauses({"expect_tx", "cta"}, {}); return; }
    const Type *t = operand(*s.dsts[0]);
    if (t->kind == TypeKind::NamedBarrier) {
      clauses({}, {});
      if (t->count) reportBareBarrierArray(*s.dsts[0]);
      return;
    }
    auto cl = clauses({"expect_tx", "cta"}, {});
    if (auto it = cl.find("expect_tx"); it != cl.end()) {
      S.checkArch(archsFrom(Arch::SM90), "'arrive ... expect_tx'", it->second->nameRange);
      integer(*it->second->args[0], "a transaction byte count");
    }
    if (auto it = cl.find("cta"); it != cl.end()) {
      S.checkArch(archsFrom(Arch::SM90), "'arrive ... cta'", it->second->nameRange);
      if (integer(*it->second->args[0], "a CTA rank") && !S.info_->hasCluster)
        S.diags_.report(DiagKind::BadOperand, it->second->nameRange, name(), "cta(...) addresses a CTA of the cluster, but the kernel has no cluster(...)");
    }
    if (t->isError() || t->kind == TypeKind::MBarrier) return;
    if (t->kind == TypeKind::MBarrierArray) reportNotSingleMBarrier(*s.dsts[0], t);
    else badOperand(*s.dsts[0], "expected an mbarrier such as full[s] or a named barrier, found " + typeToString(t));
  }

  void wait() {
    auto cl = clauses({"parity"}, {});
    if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "mbarrier")) return;
    const Type *t = operand(*s.dsts[0]);
    if (t->kind == TypeKind::NamedBarrier) {
      S.diags_.report(DiagKind::BadOperand, s.dsts[0]->range, name(),
                      "'wait' takes an mbarrier; to wait at a named barrier write 'sync " + S.text(*s.dsts[0]) + "'")
          .fixit(s.nameRange, "sync");
      return;
    }
    bool ok = true;
    if (t->isError()) ok = false;
    else if (t->kind != TypeKind::MBarrier) {
      reportNotSingleMBarrier(*s.dsts[0], t);
      ok = false;
    }
    auto it = cl.find("parity");
    if (it != cl.end()) integer(*it->second->args[0], "a phase parity");
    else if (ok && std::none_of(s.clauses.begin(), s.clauses.end(), [](const Clause &c) { return c.name == "parity"; }))
      S.diags_.report(DiagKind::MissingClause, s.nameRange, name(), "parity")
          .hint("wait on an mbarrier names the phase parity it waits for: wait " + S.text(*s.dsts[0]) + " parity(p);");
  }

  // `sync epi;` on `barrier epi[2]`: which instance's barrier is meant (E0352)?
  void reportBareBarrierArray(const Expr &e) {
    std::string n = S.text(e);
    std::string index = ctx.role ? ctx.role->name + ".index" : "i";
    S.diags_.report(DiagKind::BarrierArrayNeedsIndex, e.range, n)
        .hint("pick one barrier of the array: " + name() + " " + n + "[" + index + "];")
        .fixit(e.range, n + "[" + index + "]");
  }

  // syncwarp | syncwarp(MASK): MASK a non-zero 32-bit constant (E0350); the lanes that reach it are the
  // verifier's obligation (E0665-E0667).
  void syncwarp() {
    clauses({}, {});
    if (!form(OpArrow::None) || !count(s.dsts, 0, 1, "lane mask")) return;
    if (s.dsts.empty()) return;
    auto v = S.constInt(*s.dsts[0], "a syncwarp lane mask");
    if (!v) return;
    if (*v == 0 || *v < 0 || *v > 0xffffffffLL) {
      S.diags_.report(DiagKind::SyncwarpBadMask, s.dsts[0]->range,
                      *v == 0 ? std::string("the mask 0 names no lane") : std::to_string(*v) + " is not a 32-bit lane mask")
          .hint("write 'syncwarp;' for all 32 lanes, or a mask such as syncwarp(0x0000ffff) for lanes 0..15");
      return;
    }
    S.adaptUntyped(*s.dsts[0], S.types_.scalar(ScalarKind::U32));
  }

  void sync() {
    clauses({}, {});
    if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "named barrier")) return;
    const Type *t = operand(*s.dsts[0]);
    if (t->kind == TypeKind::NamedBarrier && t->count) reportBareBarrierArray(*s.dsts[0]);
    if (t->isError() || t->kind == TypeKind::NamedBarrier) return;
    if (t->kind == TypeKind::MBarrier || t->kind == TypeKind::MBarrierArray)
      badOperand(*s.dsts[0], "'sync' takes a named barrier; to wait on an mbarrier write 'wait " + S.text(*s.dsts[0]) + " parity(p)'");
    else
      badOperand(*s.dsts[0], "expected a named barrier, found " + typeToString(t));
  }
};

} // namespace

void Sema::analyzeOp(OpStmt &s, const StmtContext &ctx) {
  const OpInfo *op = s.op ? s.op : lookupOp(s.name);
  if (!op) {
    // The parser reported the unknown operation; resolve names so nothing else cascades.
    for (auto *list : {&s.dsts, &s.srcs})
      for (auto &e : *list)
        if (e) checkExpr(*e, ExprMode::Operand);
    return;
  }
  s.op = op;
  checkArch(op->archs, quote(op->spelling), s.nameRange);
  OpChecker(*this, s, *op, ctx).run();
}

} // namespace cake
