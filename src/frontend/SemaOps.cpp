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
// depend on it, so one mistake gives one diagnostic.  The fragment and tensor-core operations' checks are in
// SemaOpsMatrix.cpp (the class is declared in SemaOpChecker.h).
#include "frontend/SemaOpChecker.h"

#include <algorithm>
#include <set>

namespace cake {

void OpChecker::run() {
  switch (op.id) {
  case OpId::TmaLoad: tmaLoad(); break;
  case OpId::TmaStore: tmaStore(); break;
  case OpId::CpAsync: cpAsync(); break;
  case OpId::Ldmatrix: case OpId::LdmatrixTrans: matrixMove(/*load=*/true); break;
  case OpId::Stmatrix: case OpId::StmatrixTrans: matrixMove(/*load=*/false); break;
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

void OpChecker::typeAll() {
  for (auto *list : {&s.dsts, &s.srcs})
    for (auto &e : *list)
      if (e && !e->type) S.checkExpr(*e, ExprMode::Operand);
  for (Clause &c : s.clauses)
    for (auto &a : c.args)
      if (a && !a->type) S.checkExpr(*a, ExprMode::Operand);
}

bool OpChecker::form(OpArrow expected) {
  if (s.arrow == expected) return true;
  S.diags_.report(DiagKind::BadOperand, s.nameRange, name(), "expected the form '" + std::string(op.form) + "'");
  typeAll();
  return false;
}

SourceRange OpChecker::span(const std::vector<Ptr<Expr>> &list, SourceRange fallback) {
  if (list.empty() || !list.front() || !list.back()) return fallback;
  return SourceRange{list.front()->range.begin, list.back()->range.end};
}

bool OpChecker::count(std::vector<Ptr<Expr>> &list, size_t min, size_t max, std::string_view what) {
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

std::map<std::string, Clause *> OpChecker::clauses(std::initializer_list<std::string_view> allowed,
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

void OpChecker::noOperands() {
  clauses({}, {});
  size_t n = s.dsts.size() + s.srcs.size();
  if (n != 0 || s.arrow != OpArrow::None) {
    S.diags_.report(DiagKind::WrongArity, span(s.dsts.empty() ? s.srcs : s.dsts, s.nameRange), name(), 0, n)
        .hint("form: " + std::string(op.form));
    typeAll();
  }
}

const Type *OpChecker::integer(Expr &e, std::string_view what) {
  const Type *t = S.checkExpr(e);
  if (t->isError() || !S.checkInteger(e, what)) return nullptr;
  return S.concretize(e);
}

std::optional<AddressSpace> OpChecker::spaceOf(Expr &e) {
  if (e.type && e.type->isTensor()) return e.type->space;
  if (auto *ix = dynCast<IndexExpr>(&e))
    if (ix->base && ix->base->type && ix->base->type->isTensor()) return ix->base->type->space;
  if (Decl *d = S.rootDecl(e)) {
    if (d->declKind == DeclKind::Shared) return AddressSpace::Shared;
    if (d->type && d->type->isTensor()) return d->type->space;
  }
  return AddressSpace::Register;
}

bool OpChecker::requireSpace(Expr &e, AddressSpace want, std::string_view role) {
  auto sp = spaceOf(e);
  if (sp == want) return true;
  S.diags_.report(DiagKind::WrongAddressSpace, e.range, std::string(role) + " of " + quote(name()),
                  addressSpaceName(want), S.text(e), addressSpaceName(*sp));
  return false;
}

bool OpChecker::singleMBarrier(Expr &e) {
  const Type *t = operand(e);
  if (t->isError()) return false;
  if (t->kind == TypeKind::MBarrier) return true;
  reportNotSingleMBarrier(e, t);
  return false;
}

void OpChecker::reportNotSingleMBarrier(Expr &e, const Type *t) {
  if (t->kind == TypeKind::MBarrierArray) {
    badOperand(e, quote(S.text(e)) + " is an array of " + (t->count ? std::to_string(*t->count) + " " : "") +
                      "mbarriers; index it, e.g. " + S.text(e) + "[s]");
    return;
  }
  badOperand(e, "expected an mbarrier such as full[s], found " + typeToString(t));
}

std::optional<OpChecker::Coords> OpChecker::coords(Expr &e, std::string_view role) {
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

const Type *OpChecker::sharedTile(Expr &e, std::string_view role) {
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

const SharedAllocation *OpChecker::allocationOf(Expr &e) {
  Decl *d = S.rootDecl(e);
  if (!d || d->declKind != DeclKind::Shared) return nullptr;
  return S.info_->sharedOf(static_cast<const SharedStmt *>(d));
}

std::vector<int64_t> OpChecker::dimValues(const Type *t) {
  std::vector<int64_t> v;
  for (const TensorDim &d : t->allDims()) v.push_back(d.value.value_or(-1));
  return v;
}

std::string OpChecker::dimsText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i] < 0 ? std::string("?") : std::to_string(v[i]));
  return s + "]";
}

void OpChecker::elementsMatch(Expr &at, ScalarKind a, ScalarKind b, const std::string &ctxText) {
  if (a != b)
    S.diags_.report(DiagKind::TypeMismatch, at.range, scalarName(a), scalarName(b), ctxText);
}

void OpChecker::warpgroupOp() {
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

void OpChecker::blockWide() {
  if (!ctx.role) return;
  S.diags_.report(DiagKind::BarrierUnderRole, s.nameRange,
                  quote(name()) + " inside role " + quote(ctx.role->name) +
                      " is reached only by the role's warps, but it waits for every thread of the " +
                      (op.id == OpId::Syncthreads ? "block" : "cluster"))
      .hint(op.id == OpId::Syncthreads ? "synchronise a subset of warps with a named barrier: barrier NAME id(n) threads(n); sync NAME;"
                                       : "issue cluster barriers outside roles");
}

void OpChecker::waitGroup(int64_t max) {
  clauses({}, {});
  if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "count")) return;
  if (auto v = S.constInt(*s.dsts[0], "the number of pending groups")) {
    S.adaptUntyped(*s.dsts[0], S.types_.i32());
    if (*v < 0 || *v > max)
      badOperand(*s.dsts[0], "the number of pending groups must be in 0.." + std::to_string(max) + ", not " + std::to_string(*v));
  }
}

void OpChecker::tmaLoad() {
  auto cl = clauses({"signal", "multicast"}, {"signal"});
  if (auto it = cl.find("signal"); it != cl.end()) singleMBarrier(*it->second->args[0]);
  if (auto it = cl.find("multicast"); it != cl.end()) {
    Expr &mask = *it->second->args[0];
    if (integer(mask, "a multicast mask") && !(S.info_->hasCluster && S.info_->clusterCtas() > 1))
      S.diags_.report(DiagKind::BadOperand, it->second->nameRange, name(), "multicast(...) needs a cluster(...) launch of more than one CTA");
  }
  if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
  const Type *dst = sharedTile(*s.dsts[0], "the destination");
  auto src = coords(*s.srcs[0], "the source");
  if (!dst || !src) return;
  tmaTile(*s.dsts[0], dst, *s.srcs[0], *src, "tile");
}

void OpChecker::tmaStore() {
  clauses({}, {});
  if (!form(OpArrow::Move) || !count(s.dsts, 1, 1, "destination") || !count(s.srcs, 1, 1, "source")) return;
  auto dst = coords(*s.dsts[0], "the destination");
  const Type *src = sharedTile(*s.srcs[0], "the source");
  if (!dst || !src) return;
  tmaTile(*s.srcs[0], src, *s.dsts[0], *dst, "tile");
}

void OpChecker::tmaTile(Expr &tileExpr, const Type *tile, Expr &globalExpr, Coords &c, std::string_view) {
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

void OpChecker::columnBlock(Expr &tileExpr, const Type *tile) {
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

void OpChecker::cpAsync() {
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

void OpChecker::mbarrierInit() {
  clauses({}, {});
  if (!form(OpArrow::None) || !count(s.dsts, 1, 1, "mbarrier")) return;
  const Type *t = operand(*s.dsts[0]);
  if (t->isError()) return;
  if (t->kind != TypeKind::MBarrier && t->kind != TypeKind::MBarrierArray)
    badOperand(*s.dsts[0], "expected an mbarrier, found " + typeToString(t));
}

void OpChecker::mbarrierExpectTx() {
  clauses({}, {});
  if (!form(OpArrow::None) || !count(s.dsts, 2, 2, "operands (mbarrier, bytes)")) return;
  singleMBarrier(*s.dsts[0]);
  integer(*s.dsts[1], "a transaction byte count");
}

void OpChecker::arrive() {
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

void OpChecker::wait() {
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

void OpChecker::reportBareBarrierArray(const Expr &e) {
  std::string n = S.text(e);
  std::string index = ctx.role ? ctx.role->name + ".index" : "i";
  S.diags_.report(DiagKind::BarrierArrayNeedsIndex, e.range, n)
      .hint("pick one barrier of the array: " + name() + " " + n + "[" + index + "];")
      .fixit(e.range, n + "[" + index + "]");
}

void OpChecker::syncwarp() {
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

void OpChecker::sync() {
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
