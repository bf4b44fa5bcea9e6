// wgmma register hazards (docs/language.md 13.3): the interpreter computes a wgmma when it is issued, so
// without this file a kernel that reads its accumulator before `wgmma.wait`, or feeds a freshly written
// accumulator to a wgmma without `wgmma.fence`, would compute the right values on the CPU and wrong ones on
// the GPU.  This file keeps, per warp, what the hardware would still be doing:
//   - pending ranges: the accumulator (and register A operand) of every wgmma issued and not yet retired.
//     A wgmma joins the open group; wgmma.commit closes it; wgmma.wait N retires the oldest committed groups
//     until at most N remain (an uncommitted group is never retired).  Any read or write of a pending range by
//     another instruction is E0916 (a further wgmma accumulating into the same registers is the chaining
//     the hardware allows).
//   - unfenced ranges: wgmma registers written by other instructions (declarations with or without an
//     initialiser, assignments, loads into them) since the warp's last wgmma.fence.  A wgmma that reads one is
//     E0917.
// wgmma.fence / commit / wait, like wgmma, are executed by all 32 lanes of a warp (E0904 otherwise).
// Ranges are scalar indices of the register value ([first, last) over the warp's active lanes), so the
// elements of a register array of accumulators are tracked one by one.  Only wgmma_acc / wgmma_a registers
// are tracked; the hooks are called from Memory.cpp (load / store of a register place), EvalExpr.cpp (a whole
// value read by name), ExecStmt.cpp (declarations) and ExecMma.cpp / ExecStmt.cpp (the wgmma operations).
#include "interp/WarpExecutor.h"

#include "frontend/Ops.h"

#include <algorithm>

namespace cake::interp {

namespace {

const Type *fragmentOf(const Type *t) {
  while (t && t->isTensor()) t = t->element;
  return t;
}

bool overlaps(const WarpExecutor::RegisterRange &r, const Decl *d, int64_t first, int64_t last) {
  return r.reg == d && r.first < last && first < r.last;
}

// The scalar indices a register place covers over the active lanes.
std::pair<int64_t, int64_t> spanOf(const Place &p, LaneMask mask) {
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (int l : lanesOf(mask)) {
    first = std::min(first, p.offset[size_t(l)]);
    last = std::max(last, p.offset[size_t(l)] + int64_t(p.length));
  }
  if (first > last) return {0, 0};
  return {first, last};
}

const WarpExecutor::RegisterRange *pendingAt(const WarpExecutor &x, const Decl *d, int64_t first, int64_t last) {
  for (const auto &r : x.wgmmaOpenGroup)
    if (overlaps(r, d, first, last)) return &r;
  for (const auto &group : x.wgmmaCommitted)
    for (const auto &r : group)
      if (overlaps(r, d, first, last)) return &r;
  return nullptr;
}

// Records that [first, last) of `d` was written by another instruction since the last fence (once per range: a
// loop that rewrites the same registers keeps one entry).
void noteUnfenced(std::vector<WarpExecutor::RegisterRange> &unfenced, const Decl *d, int64_t first, int64_t last,
                  SourceRange where) {
  for (const auto &r : unfenced)
    if (r.reg == d && r.first <= first && last <= r.last) return;
  unfenced.push_back({d, first, last, where});
}

// E0916: `name` is read or written by warp x.warp while the wgmma `holder` keeps it.
[[noreturn]] void reportPending(WarpExecutor &x, const std::string &name, bool write, SourceRange where,
                                const WarpExecutor::RegisterRange &holder) {
  DiagBuilder diag = x.launch.diags->reportArgs(DiagKind::InterpWgmmaPending, where,
                                                {name, write ? "written" : "read",
                                                 "warp " + std::to_string(x.warp) + " of " + x.blockText()});
  diag.hint("a wgmma runs asynchronously: its accumulator and register A operand belong to the tensor cores "
            "until 'wgmma.commit; wgmma.wait N;' retires its group - wait before this access");
  diag.note(holder.by, "the wgmma that holds it");
  if (x.launch.kernel) diag.note(x.launch.kernel->nameRange, "while running kernel '" + x.launch.kernel->name + "'");
  throw RunFailed{};
}

} // namespace

bool WarpExecutor::namesRegister(const Expr &e) {
  const Expr *root = &e;
  while (auto *ix = dynCast<IndexExpr>(root)) root = ix->base.get();
  auto *name = dynCast<NameExpr>(root);
  return name && name->decl && (name->decl->declKind == DeclKind::Var || name->decl->declKind == DeclKind::Let);
}

bool WarpExecutor::isWgmmaRegister(const Decl *d) {
  if (!d || (d->declKind != DeclKind::Var && d->declKind != DeclKind::Let)) return false;
  const Type *t = fragmentOf(d->type);
  return t && t->isFragment() && (t->frag == FragKind::WgmmaAcc || t->frag == FragKind::WgmmaA);
}

void WarpExecutor::wgmmaValueAccess(const Decl *d, bool write, SourceRange where) {
  if (inWgmma || !isWgmmaRegister(d)) return;
  auto it = env.find(d);
  const int64_t width = it == env.end() ? INT64_MAX : int64_t(it->second.width);
  if (const RegisterRange *r = pendingAt(*this, d, 0, width)) reportPending(*this, d->name, write, where, *r);
  if (write) noteUnfenced(wgmmaUnfenced, d, 0, width, where);
}

void WarpExecutor::wgmmaRegisterAccess(const Place &p, LaneMask mask, bool write) {
  if (inWgmma || p.kind != Place::Register || !isWgmmaRegister(p.reg)) return;
  auto [first, last] = spanOf(p, mask);
  const SourceRange where = current ? current->range : SourceRange{};
  if (const RegisterRange *r = pendingAt(*this, p.reg, first, last)) reportPending(*this, std::string(p.name), write, where, *r);
  if (write) noteUnfenced(wgmmaUnfenced, p.reg, first, last, where);
}

void WarpExecutor::wgmmaIssue(const OpStmt &op, LaneMask mask) {
  std::vector<RegisterRange> held;
  Place acc = place(*op.dsts[0], mask, "wgmma accumulator");
  auto [af, al] = spanOf(acc, mask);
  held.push_back({acc.reg, af, al, op.range});
  auto *mul = dynCast<BinaryExpr>(op.srcs[0].get());
  if (mul && mul->lhs->type && mul->lhs->type->isFragment() && namesRegister(*mul->lhs)) {
    Place a = place(*mul->lhs, mask, "wgmma A operand");
    if (a.kind == Place::Register) {
      auto [f, l] = spanOf(a, mask);
      held.push_back({a.reg, f, l, op.range});
    }
  }
  for (const RegisterRange &h : held)
    for (const RegisterRange &w : wgmmaUnfenced)
      if (overlaps(w, h.reg, h.first, h.last)) {
        DiagBuilder diag = launch.diags->reportArgs(DiagKind::InterpWgmmaNoFence, op.range,
                                                    {h.reg->name, "warp " + std::to_string(warp) + " of " + blockText()});
        diag.hint("put 'wgmma.fence;' between the last write of '" + h.reg->name + "' and this wgmma");
        diag.note(w.by, "'" + h.reg->name + "' written here");
        if (launch.kernel) diag.note(launch.kernel->nameRange, "while running kernel '" + launch.kernel->name + "'");
        throw RunFailed{};
      }
  for (RegisterRange &h : held) wgmmaOpenGroup.push_back(h);
}

void WarpExecutor::wgmmaGroupOp(const OpStmt &op, LaneMask mask) {
  requireFullWarp(op.name.c_str(), op.range, mask);   // .sync.aligned: every lane of the warp (E0904)
  switch (op.op->id) {
  case OpId::WgmmaFence: wgmmaUnfenced.clear(); return;
  case OpId::WgmmaCommit:
    if (!wgmmaOpenGroup.empty()) wgmmaCommitted.push_back(std::move(wgmmaOpenGroup));
    wgmmaOpenGroup.clear();
    return;
  case OpId::WgmmaWait: {   // N as written: `wgmma.wait N;`
    const Expr *n = !op.dsts.empty() ? op.dsts[0].get() : !op.srcs.empty() ? op.srcs[0].get() : nullptr;
    const int64_t keep = n ? constInt(*n, mask) : 0;
    while (int64_t(wgmmaCommitted.size()) > std::max<int64_t>(keep, 0)) wgmmaCommitted.pop_front();
    return;
  }
  default: CAKE_INTERNAL_ERROR("interpreter: wgmmaGroupOp on another operation");
  }
}

} // namespace cake::interp
