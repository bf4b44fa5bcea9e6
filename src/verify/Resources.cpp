// Verifier family: resources (E0648, E0649, E0650, E0651).
//
// Sema already checks the constant limits (docs/frontend-contract.md): shared memory against the target
// (E0414), regs(r) in 24..256 and a multiple of 8, the budgets of the roles against the 64K register file
// (E0410), TMA boxes 1..256 with a 16-byte inner row (E0316), wgmma roles warpgroup-aligned (E0404).  This
// family adds what needs the kernel body or the solver:
//   1. register demand (E0648): a lower bound of the registers a thread needs - the largest sum, over the
//      points of a block where a register var is declared, of the register vars (fragments, register arrays,
//      scalars) declared so far in that block and still referenced after that point (or initialised at it) - must fit the
//      budget: the role's regs(r), else min(255, 65536 / threads rounded down to 8) (the launch limit).
//      Role bodies also count the kernel-level vars declared before the role and referenced in it; a
//      reference in the branch of a compile-time `if` that is not compiled does not count.
//   2. register file with setmaxnreg (E0649): when some roles have budgets, the warps without one keep their
//      launch allocation, at least 24 registers per thread; budgets + 24 x the other threads <= 65536.
//   3. TMA tensor alignment (E0650): a tma(...) tensor states align(n) with n >= 16, and every row pitch (the
//      stride of each dim but the innermost, in bytes) is a multiple of 16 for every shape allowed by
//      requires(...) - proven with Z3 (counterexample on failure, E0601 when undecided).
//   4. TMA shared-tile alignment (E0651): the shared tile of each tma.load / tma.store starts on a 128-byte
//      boundary (8 x the swizzle span when swizzled) for every stage it may address: the array's offset in
//      the layout and its stage size are constants, so this is arithmetic on KernelInfo.
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/ConstEval.h"
#include "frontend/Ops.h"
#include "frontend/Types.h"

#include <functional>

namespace cake {

namespace {

int64_t registersOf(const Decl &d) {
  if (!d.type) return 0;
  const Type *t = d.type;
  if (t->isFragment()) return t->fragRegistersPerThread();
  if (t->isTensor() && t->space == AddressSpace::Register && t->element) {
    auto n = t->numElements();
    if (!n) return 0;
    if (t->element->isFragment()) return *n * t->element->fragRegistersPerThread();
    auto bytes = t->element->sizeInBytes();
    return bytes ? (*n * *bytes + 3) / 4 : 0;
  }
  if (t->isScalar() || t->isVector()) {
    auto bytes = t->sizeInBytes();
    return bytes ? (*bytes + 3) / 4 : 0;
  }
  return 0;
}

bool references(const Expr *e, const Decl *d) {
  if (!e) return false;
  switch (e->kind) {
  case ExprKind::Name: return cast<NameExpr>(e)->decl == d;
  case ExprKind::Unary: return references(cast<UnaryExpr>(e)->operand.get(), d);
  case ExprKind::Binary: return references(cast<BinaryExpr>(e)->lhs.get(), d) || references(cast<BinaryExpr>(e)->rhs.get(), d);
  case ExprKind::Member: return references(cast<MemberExpr>(e)->base.get(), d);
  case ExprKind::Index: {
    auto *ix = cast<IndexExpr>(e);
    if (references(ix->base.get(), d)) return true;
    for (const IndexItem &it : ix->items)
      if (references(it.start.get(), d) || references(it.length.get(), d)) return true;
    return false;
  }
  case ExprKind::Call:
    for (auto &a : cast<CallExpr>(e)->args)
      if (references(a.get(), d)) return true;
    return false;
  default: return false;
  }
}

bool references(const Stmt *s, const Decl *d) {
  if (!s) return false;
  switch (s->kind) {
  case StmtKind::Block:
    for (auto &c : cast<BlockStmt>(s)->stmts)
      if (references(c.get(), d)) return true;
    return false;
  case StmtKind::Let: return references(cast<LetStmt>(s)->init.get(), d);
  case StmtKind::Var: return references(cast<VarStmt>(s)->init.get(), d);
  case StmtKind::Assign: return references(cast<AssignStmt>(s)->target.get(), d) || references(cast<AssignStmt>(s)->value.get(), d);
  case StmtKind::Op: {
    auto *op = cast<OpStmt>(s);
    for (auto &e : op->dsts) if (references(e.get(), d)) return true;
    for (auto &e : op->srcs) if (references(e.get(), d)) return true;
    for (auto &c : op->clauses) for (auto &e : c.args) if (references(e.get(), d)) return true;
    return false;
  }
  case StmtKind::Role: return references(cast<RoleStmt>(s)->body.get(), d);
  case StmtKind::For: {
    auto *f = cast<ForStmt>(s);
    return references(f->lower.get(), d) || references(f->upper.get(), d) || references(f->step.get(), d) || references(f->body.get(), d);
  }
  case StmtKind::If: {
    auto *i = cast<IfStmt>(s);
    // A compile-time condition (`if QL == 0`) keeps only the branch that is compiled.
    if (i->cond)
      if (std::optional<int64_t> c = ConstEvaluator().evaluate(*i->cond).optional())
        return references(*c ? i->thenBody.get() : i->elseBody.get(), d);
    return references(i->cond.get(), d) || references(i->thenBody.get(), d) || references(i->elseBody.get(), d);
  }
  case StmtKind::Elect: return references(cast<ElectStmt>(s)->body.get(), d);
  default: return false;
  }
}

struct Demand {
  int64_t registers = 0;
  std::vector<const VarStmt *> vars;   // the vars making up the peak
};

// Peak simultaneous register demand of the vars declared at the top level of `b` (plus `inherited`,
// vars from an enclosing level that are referenced inside `b`).
Demand peakDemand(const BlockStmt &b, const std::vector<const VarStmt *> &inherited) {
  Demand best;
  std::vector<std::pair<size_t, const VarStmt *>> declared;
  for (size_t i = 0; i < b.stmts.size(); ++i)
    if (auto *v = dynCast<VarStmt>(b.stmts[i].get())) declared.push_back({i, v});
  auto liveAt = [&](size_t q) {
    Demand d;
    for (const VarStmt *v : inherited) { d.registers += registersOf(*v); d.vars.push_back(v); }
    for (auto &[pos, v] : declared) {
      if (pos > q) continue;
      bool used = false;
      for (size_t j = q + 1; j < b.stmts.size() && !used; ++j) used = references(b.stmts[j].get(), v);
      // At its own declaration a var counts when it is initialised there; otherwise only while referenced.
      if ((pos == q && v->init) || used) { d.registers += registersOf(*v); d.vars.push_back(v); }
    }
    return d;
  };
  for (auto &[pos, v] : declared) {
    Demand d = liveAt(pos);
    if (d.registers > best.registers) best = d;
  }
  if (declared.empty() && !inherited.empty()) best = liveAt(0);
  return best;
}

void checkRegisterDemand(VerifyContext &ctx) {
  const Kernel &k = ctx.kernel();
  const KernelInfo &info = ctx.info();
  if (!k.body || info.threads <= 0) return;
  int64_t launchLimit = std::min<int64_t>(255, (65536 / info.threads) / 8 * 8);
  auto check = [&](const Demand &d, int64_t limit, const std::string &who, const std::string &limitText, SourceRange at) {
    if (d.registers <= limit) { ctx.recordProven(); return; }
    auto diag = ctx.reportFailure(DiagKind::RegisterDemand, at, who, d.registers, limitText);
    for (const VarStmt *v : d.vars)
      diag.note(v->nameRange, "'" + v->name + "' holds " + std::to_string(registersOf(*v)) + " registers per thread");
    diag.hint("shrink the tiles held in registers, spread them over more threads, or raise the budget");
  };
  // Kernel-level code.
  Demand top = peakDemand(*k.body, {});
  check(top, launchLimit, "kernel '" + k.name + "'",
        std::to_string(launchLimit) + " (the per-thread limit with threads(" + std::to_string(info.threads) + "))", k.nameRange);
  // Roles.
  std::vector<const VarStmt *> before;
  for (auto &s : k.body->stmts) {
    if (auto *v = dynCast<VarStmt>(s.get())) before.push_back(v);
    auto *r = dynCast<RoleStmt>(s.get());
    if (!r || !r->body) continue;
    const RoleInfo *ri = info.roleOf(r);
    std::vector<const VarStmt *> inherited;
    for (const VarStmt *v : before)
      if (references(r->body.get(), v)) inherited.push_back(v);
    Demand d = peakDemand(*r->body, inherited);
    if (ri && ri->regs) check(d, *ri->regs, "role '" + r->name + "'", "its budget regs(" + std::to_string(*ri->regs) + ")", r->nameRange);
    else check(d, launchLimit, "role '" + r->name + "'", std::to_string(launchLimit) + " (the per-thread launch limit)", r->nameRange);
  }
}

void checkRegisterFile(VerifyContext &ctx) {
  const KernelInfo &info = ctx.info();
  bool anyBudget = false;
  int64_t budgeted = 0, budgetedWarps = 0;
  for (const RoleInfo &r : info.roles)
    if (r.rangeKnown && r.regs) {
      anyBudget = true;
      budgeted += (r.endWarp - r.firstWarp) * 32 * *r.regs;
      budgetedWarps += r.endWarp - r.firstWarp;
    }
  if (!anyBudget) return;
  int64_t otherThreads = (info.warps() - budgetedWarps) * 32;
  int64_t total = budgeted + otherThreads * 24;
  if (total <= 65536) { ctx.recordProven(); return; }
  auto d = ctx.reportFailure(DiagKind::RegisterFileOversubscribed, ctx.kernel().nameRange, total,
                             std::to_string(budgeted) + " for the budgets plus at least 24 x " + std::to_string(otherThreads) +
                                 " threads without one");
  for (const RoleInfo &r : info.roles)
    if (r.rangeKnown && r.regs)
      d.note(r.decl->nameRange, "role '" + r.name + "': " + std::to_string(r.endWarp - r.firstWarp) + " warps x 32 x " +
                                    std::to_string(*r.regs));
  d.hint("give the warps outside the budgeted roles a role with regs(24), or lower the budgets");
}

void checkTmaTensors(VerifyContext &ctx) {
  for (const auto &[param, ti] : ctx.info().tensorParams) {
    if (!ti.tma || !param->type || !param->type->isTensor()) continue;
    if (ti.alignment < 16) {
      ctx.reportFailure(DiagKind::TmaTensorAlignment, param->nameRange, param->name,
                        ti.alignment ? "align(" + std::to_string(ti.alignment) + ") is below the 16 bytes a tensor map needs"
                                     : "the base alignment is not stated; a tensor map needs a 16-byte aligned base")
          .hint("add align(16) to '" + param->name + "' (the runtime checks it at launch)")
          .fixit(setAlignment(param->attrs, param->declaredType ? param->declaredType->range : param->nameRange, 16));
    } else {
      ctx.recordProven();
    }
    std::vector<TensorDim> dims = param->type->allDims();
    int64_t elemBytes = param->type->element ? param->type->element->sizeInBytes().value_or(1) : 1;
    if (dims.size() < 2) continue;
    // Row pitch of dim d (d < rank-1): stride(..) as written, or the product of the inner dims.
    for (size_t d = 0; d + 1 < dims.size(); ++d) {
      std::optional<z3::expr> pitch;
      TranslateFailure failure;
      if (!ti.strides.empty() && d < ti.strides.size()) {
        pitch = ctx.toZ3(*ti.strides[d], &failure);
      } else {
        pitch = ctx.z3().int_val(1);
        for (size_t j = d + 1; j < dims.size() && pitch; ++j) {
          if (dims[j].value) pitch = *pitch * ctx.z3().int_val(*dims[j].value);
          else if (dims[j].expr) {
            auto t = ctx.toZ3(*dims[j].expr, &failure);
            pitch = t ? std::optional<z3::expr>(*pitch * *t) : std::nullopt;
          } else {
            pitch.reset();
          }
        }
      }
      std::string obligation = "that the row pitch of dimension " + std::to_string(d) + " of TMA tensor '" + param->name +
                               "' is a multiple of 16 bytes";
      if (!pitch) {
        ctx.reportUnproven(param->nameRange, obligation, failure.reason.empty() ? "the stride cannot be expressed" : failure.reason);
        continue;
      }
      z3::expr bytes = *pitch * ctx.z3().int_val(elemBytes);
      ProofResult r = ctx.proveForAll(z3::mod(bytes, 16) == 0);
      if (r.proven()) { ctx.recordProven(); continue; }
      if (!r.refuted()) { ctx.reportUnproven(param->nameRange, obligation, r.reason, r.timedOut); continue; }
      // With no stride(..) every pitch is a product that holds the last dim: rows of whole 16-byte chunks in the
      // last dim make them all multiples of 16.
      const std::string condition = divisibleBy(ti.strides.empty() ? dims.back().text : dims[d + 1].text,
                                                16 / std::min<int64_t>(16, elemBytes));
      auto diag = ctx.reportFailure(DiagKind::TmaTensorAlignment, param->nameRange, param->name,
                                    "the pitch of dimension " + std::to_string(d) + " is not always a multiple of 16 bytes");
      diag.note(param->nameRange, "counterexample: " + r.counterexampleText())
          .hint("add a requires(...) such as " + condition + " (rows of " + std::to_string(elemBytes) + "-byte elements)");
      if (ti.strides.empty())
        if (std::optional<FixIt> fix = addRequirement(ctx.kernel(), condition)) diag.fixit(*fix);
    }
  }
}

const SharedStmt *sharedRoot(const Expr *e, const Expr **stage) {
  *stage = nullptr;
  while (e) {
    if (auto *n = dynCast<NameExpr>(e))
      return n->decl && n->decl->declKind == DeclKind::Shared ? static_cast<const SharedStmt *>(n->decl) : nullptr;
    if (auto *ix = dynCast<IndexExpr>(e)) {
      if (ix->items.size() == 1 && ix->items[0].kind == IndexItem::Point) *stage = ix->items[0].start.get();
      e = ix->base.get();
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

void checkTmaSharedTiles(VerifyContext &ctx, const Stmt &s) {
  if (auto *b = dynCast<BlockStmt>(&s)) { for (auto &c : b->stmts) if (c) checkTmaSharedTiles(ctx, *c); return; }
  if (auto *r = dynCast<RoleStmt>(&s)) { if (r->body) checkTmaSharedTiles(ctx, *r->body); return; }
  if (auto *f = dynCast<ForStmt>(&s)) { if (f->body) checkTmaSharedTiles(ctx, *f->body); return; }
  if (auto *i = dynCast<IfStmt>(&s)) {
    if (i->thenBody) checkTmaSharedTiles(ctx, *i->thenBody);
    if (i->elseBody) checkTmaSharedTiles(ctx, *i->elseBody);
    return;
  }
  if (auto *e = dynCast<ElectStmt>(&s)) { if (e->body) checkTmaSharedTiles(ctx, *e->body); return; }
  auto *op = dynCast<OpStmt>(&s);
  if (!op || !op->op || (op->op->id != OpId::TmaLoad && op->op->id != OpId::TmaStore)) return;
  const Expr *tile = op->op->id == OpId::TmaLoad ? (op->dsts.empty() ? nullptr : op->dsts[0].get())
                                                 : (op->srcs.empty() ? nullptr : op->srcs[0].get());
  const Expr *stage = nullptr;
  const SharedStmt *sh = sharedRoot(tile, &stage);
  if (!sh) return;
  const SharedAllocation *a = ctx.info().sharedOf(sh);
  if (!a || !sh->type || !sh->type->isTensor()) return;
  int64_t required = a->swizzleBytes ? 8 * a->swizzleBytes : 128;
  int64_t stages = 1, stageBytes = a->bytes;
  if (stage && sh->type->groups.size() >= 2 && sh->type->groups.front().size() == 1 && sh->type->groups.front()[0].value) {
    stages = *sh->type->groups.front()[0].value;
    stageBytes = stages > 0 ? a->bytes / stages : a->bytes;
  }
  for (int64_t st = 0; st < stages; ++st) {
    int64_t offset = a->offset + st * stageBytes;
    if (offset % required == 0) continue;
    auto d = ctx.reportFailure(DiagKind::TmaSharedAlignment, op->range, op->name, sh->name, offset, required);
    d.note(sh->nameRange, "'" + sh->name + "' starts at byte " + std::to_string(a->offset) +
                              (stages > 1 ? " and its stages are " + std::to_string(stageBytes) + " bytes apart (stage " +
                                                std::to_string(st) + ")"
                                          : ""));
    d.hint("declare '" + sh->name + "' with align(" + std::to_string(required) + ")" +
           (stages > 1 ? " and make each stage a multiple of " + std::to_string(required) + " bytes" : ""));
    if (stageBytes % required == 0 && sh->declaredType)
      d.fixit(setAlignment(sh->attrs, sh->declaredType->range, required));
    return;
  }
  ctx.recordProven();
}

} // namespace

void verifyResources(VerifyContext &ctx) {
  checkRegisterDemand(ctx);
  checkRegisterFile(ctx);
  checkTmaTensors(ctx);
  if (ctx.kernel().body) checkTmaSharedTiles(ctx, *ctx.kernel().body);
}

} // namespace cake
