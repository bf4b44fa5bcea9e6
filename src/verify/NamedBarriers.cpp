// Verifier family: named barriers and syncthreads (E0640, E0641, E0642, E0353, E0668, E0669; E0601 when
// unproven).
//
// Algorithm
//   1. Collect the uses: every `sync B` / `arrive B` of a named barrier B, and every `syncthreads`
//      (barrier 0).  For each, ControlPath's reachingWarps() gives the warps that execute it and whether
//      it sits under divergent control (thread-varying if, elect, thread-varying loop bounds, an earlier
//      return taken by some threads only).
//   2. Divergent uses are errors on their own (E0642), with a note at the construct that splits the
//      threads; they are left out of the counts.  Uses whose warp set cannot be evaluated (a warp-selecting
//      condition over runtime values) are reported as unproven (E0601).
//   3. Per barrier, the participants are the union of the warps of all its uses; 32 threads per warp.
//      The declared count (threads(n); the whole block for syncthreads) must equal that number (E0640,
//      with a fix-it on threads(..)).  Ids 1..15, unique declarations and counts that are multiples of 32
//      are sema's checks (E0316) and are not repeated here.
//   Named barrier arrays (`barrier epi[2] id(1) threads(128)`): each use `sync epi[i]` names one barrier per
//      warp.  The index must be warp-uniform (E0353); it is evaluated for every reaching warp (warp,
//      ROLE.warp, ROLE.index and compile-time values bound; E0669 when it cannot be) and must lie in the
//      array (E0668).  The use then counts, per barrier of the array, only the warps whose index names it:
//      each barrier (each id) is checked on its own by steps 3 and 4.
//   4. Id collision: when the uses come from two or more groups - role instances; kernel-level code is one
//      group -, the union does not match the count, and *each* group's warps alone match it, the groups do
//      not mean to meet: each fills the barrier by itself, so their phases mix (E0641).
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/NamedBarrierOperand.h"
#include "verify/VerifyContext.h"
#include "verify/SourceText.h"

#include "frontend/Ops.h"

#include <algorithm>
#include <map>
#include <set>

namespace cake {

namespace {

struct BarrierUse {
  const OpStmt *op;
  const RoleStmt *role;
  std::vector<int64_t> warps;
};

// One named barrier, or one syncthreads site: every syncthreads must be reached by the whole block on its
// own, while the sync/arrive sites of a named barrier meet each other.
struct BarrierKey {
  const BarrierStmt *decl;   // null = barrier 0 (syncthreads)
  const OpStmt *site;        // the syncthreads; null for named barriers
  int64_t instance = 0;      // the barrier of a named barrier array
  bool operator<(const BarrierKey &o) const {
    if (decl != o.decl) return decl < o.decl;
    if (site != o.site) return site < o.site;
    return instance < o.instance;
  }
};

std::string describeBarrier(const BarrierStmt *b, int64_t instance, const KernelInfo &info) {
  if (!b) return "syncthreads (barrier 0)";
  const NamedBarrierInfo *nb = info.namedBarrierOf(b);
  if (nb && nb->isArray)
    return "named barrier '" + b->name + "[" + std::to_string(instance) + "]' (id " + std::to_string(nb->id + instance) + ")";
  return "named barrier '" + b->name + "' (id " + std::to_string(nb ? nb->id : 0) + ")";
}

std::string groupName(const RoleStmt *r) { return r ? "role '" + r->name + "'" : "the kernel-level code"; }

using Group = std::pair<const RoleStmt *, int64_t>;   // role (null: kernel level), instance

std::string groupName(const Group &g, const KernelInfo &info) {
  const RoleInfo *ri = g.first ? info.roleOf(g.first) : nullptr;
  if (ri && ri->instances > 1) return "role '" + g.first->name + "[" + std::to_string(g.second) + "]'";
  return groupName(g.first);
}

const Expr *threadsAttrValue(const BarrierStmt *b) {
  for (const Attr &a : b->attrs)
    if (a.name == "threads" && a.args.size() == 1) return a.args[0].value.get();
  return nullptr;
}

void noteDivergence(DiagBuilder &d, const DiagnosticEngine &diags, const WarpReach &r) {
  const Stmt *s = r.divergentAt;
  if (auto *i = dynCast<IfStmt>(s)) {
    std::string msg = "the condition '" + sourceText(diags, i->cond->range) + "'";
    if (r.divergentCause) msg += " depends on " + sourceText(diags, r.divergentCause->range);
    d.note(i->cond->range, msg + ", which differs between the threads of a warp");
  } else if (isa<ElectStmt>(s)) {
    SourceRange head = s->range;
    head.end = head.begin.offset + 5;
    d.note(head, "'elect' runs its body on one lane of each warp");
  } else if (auto *f = dynCast<ForStmt>(s)) {
    const Expr *e = r.divergentCause ? r.divergentCause : f->upper.get();
    d.note(e->range, "the loop's bound '" + sourceText(diags, e->range) + "' differs between threads");
  } else if (isa<ReturnStmt>(s)) {
    d.note(s->range, "this return is taken by some threads only; they never arrive");
  }
}

} // namespace

void verifyNamedBarriers(VerifyContext &ctx) {
  UniformityAnalysis uniformity(ctx.kernel(), ctx.info());
  std::map<BarrierKey, std::vector<BarrierUse>> uses;
  std::vector<BarrierKey> order;

  walkControl(ctx.kernel(), uniformity, [&](const Stmt &s, const ControlPath &path) {
    auto *op = dynCast<OpStmt>(&s);
    if (!op || !op->op) return;
    const BarrierStmt *b = nullptr;
    const Expr *index = nullptr;
    if (op->op->id == OpId::Syncthreads) b = nullptr;
    else if (op->op->id == OpId::Sync || op->op->id == OpId::Arrive) {
      b = namedBarrierOperand(*op, &index);
      if (!b) return;   // arrive on an mbarrier: another family
    } else {
      return;
    }
    std::string what = op->op->id == OpId::Syncthreads
                           ? "syncthreads"
                           : "'" + std::string(op->name) + " " + sourceText(ctx.diags(), op->dsts[0]->range) + "'";
    WarpReach reach = reachingWarps(path, ctx.info(), uniformity, SyncScope::Block);
    if (reach.divergent()) {
      auto d = ctx.reportFailure(DiagKind::BarrierUnderDivergence, op->range, what, reach.divergentWhy);
      noteDivergence(d, ctx.diags(), reach);
      d.hint("move the barrier out of the divergent region; select participants with conditions on warp, "
             "ROLE.warp or ROLE.index (whole warps) and count them in threads(..)");
      return;
    }
    if (!reach.known) {
      std::string why = reach.unknownCause
                            ? "the condition '" + sourceText(ctx.diags(), reach.unknownCause->range) +
                                  "' selects warps by a value that is not known at compile time"
                            : "the role's warp range is not known";
      auto d = ctx.reportUnproven(op->range, "which threads reach " + what, why);
      if (reach.unknownCause) d.note(reach.unknownCause->range, "condition evaluated per warp here");
      return;
    }
    if (!index) {
      BarrierKey key{b, b ? nullptr : op, 0};
      if (!uses.count(key)) order.push_back(key);
      uses[key].push_back({op, path.role, reach.warps});
      return;
    }
    // A barrier of an array: the index per warp picks the barrier.
    const NamedBarrierInfo *nb = ctx.info().namedBarrierOf(b);
    if (!nb) return;   // sema reported it
    if (uniformity.of(*index) == Uniformity::Thread) {
      const Expr *cause = uniformity.culprit(*index, Uniformity::Thread);
      auto d = ctx.reportFailure(DiagKind::BarrierIndexNotUniform, index->range, b->name,
                                 "'" + sourceText(ctx.diags(), index->range) + "' differs between the lanes of a warp");
      if (cause) d.note(cause->range, "this differs between the lanes of a warp");
      d.hint("index the barrier by the role instance, e.g. " + b->name + "[ROLE.index]");
      return;
    }
    const RoleInfo *ri = path.role ? ctx.info().roleOf(path.role) : nullptr;
    std::map<int64_t, std::vector<int64_t>> byInstance;
    for (int64_t w : reach.warps) {
      WarpPoint p = warpPointAt(w, path.role, ri);
      std::optional<int64_t> v = evalAtWarp(*index, p);
      if (!v) {
        ctx.reportFailure(DiagKind::BarrierIndexUnknown, index->range, b->name,
                          "'" + sourceText(ctx.diags(), index->range) + "' is not known per warp")
            .hint("index by ROLE.index, ROLE.warp, warp or compile-time values");
        return;
      }
      if (*v < 0 || *v >= nb->count) {
        ctx.reportFailure(DiagKind::BarrierIndexOutOfRange, index->range, *v, b->name, nb->count)
            .note(op->range, "warp " + std::to_string(w) + (p.role ? " (" + groupName(Group{p.role, p.roleIndex}, ctx.info()) + ")" : "") +
                                 " uses index " + std::to_string(*v) + " here")
            .note(b->nameRange, "declared here with " + std::to_string(nb->count) + " barriers");
        return;
      }
      byInstance[*v].push_back(w);
    }
    ctx.recordProven();   // the index is in range for every reaching warp
    for (auto &[inst, warps] : byInstance) {
      BarrierKey key{b, nullptr, inst};
      if (!uses.count(key)) order.push_back(key);
      uses[key].push_back({op, path.role, warps});
    }
  });

  for (const BarrierKey &key : order) {
    const std::vector<BarrierUse> &list = uses[key];
    int64_t count = 0;
    if (key.decl) {
      const NamedBarrierInfo *nb = ctx.info().namedBarrierOf(key.decl);
      if (!nb) continue;   // sema reported it
      count = nb->threads;
    } else {
      count = ctx.info().threads;
    }
    // Groups: one per role instance (kernel-level code is one group), since instances of a role do not
    // meet unless the count says so.
    std::set<int64_t> all;
    std::vector<Group> groups;
    std::map<Group, std::set<int64_t>> byGroup;
    for (const BarrierUse &u : list) {
      all.insert(u.warps.begin(), u.warps.end());
      const RoleInfo *ri = u.role ? ctx.info().roleOf(u.role) : nullptr;
      for (int64_t w : u.warps) {
        int64_t inst = ri && ri->warpsPerInstance() > 0 ? (w - ri->firstWarp) / ri->warpsPerInstance() : 0;
        Group g{u.role, inst};
        if (!byGroup.count(g)) groups.push_back(g);
        byGroup[g].insert(w);
      }
    }
    int64_t reaching = static_cast<int64_t>(all.size()) * 32;
    if (reaching == count) {
      ctx.recordProven();
      continue;
    }
    std::string what = describeBarrier(key.decl, key.instance, ctx.info());

    // The use that goes wrong: the first sync (a waiter) if any, else the first use.
    const BarrierUse *culprit = &list.front();
    for (const BarrierUse &u : list)
      if (u.op->op->id != OpId::Arrive) { culprit = &u; break; }

    bool collision = groups.size() >= 2;
    for (const Group &g : groups)
      if (static_cast<int64_t>(byGroup[g].size()) * 32 != count) collision = false;
    if (collision) {
      // Report at the first use reached by the second group.
      const BarrierUse *second = &list.front();
      for (const BarrierUse &u : list)
        if (u.role == groups[1].first) { second = &u; break; }
      auto d = ctx.reportFailure(DiagKind::BarrierIdCollision, second->op->range, what, groupName(groups[0], ctx.info()),
                                 groupName(groups[1], ctx.info()), count);
      for (const BarrierUse &u : list)
        d.note(u.op->range, groupName(u.role) + " (" + describeWarps(u.warps) + ", " +
                                std::to_string(u.warps.size() * 32) + " threads) uses it here");
      if (key.decl) d.note(key.decl->nameRange, "declared here with threads(" + std::to_string(count) + ")");
      if (key.decl && groups[0].first && groups[0].first == groups[1].first) {
        const RoleInfo *ri = ctx.info().roleOf(groups[0].first);
        d.hint("give each instance of role '" + groups[0].first->name + "' its own barrier: barrier " + key.decl->name +
               "[" + std::to_string(ri ? ri->instances : 2) + "] id(..) threads(" + std::to_string(count) + "); and sync " +
               key.decl->name + "[" + groups[0].first->name + ".index];");
      } else {
        d.hint("declare a separate barrier with another id for " + groupName(groups[1], ctx.info()) +
               ", or threads(" + std::to_string(reaching) + ") if the roles really meet");
      }
      continue;
    }

    std::vector<int64_t> allWarps(all.begin(), all.end());
    auto d = ctx.reportFailure(DiagKind::BarrierCountMismatch, culprit->op->range, what, count, reaching);
    for (const BarrierUse &u : list)
      d.note(u.op->range, groupName(u.role) + ": " + describeWarps(u.warps) + " (" + std::to_string(u.warps.size() * 32) +
                              " threads) reach this " + std::string(u.op->name));
    if (key.decl) {
      d.note(key.decl->nameRange, "declared here with threads(" + std::to_string(count) + ")");
      if (const Expr *t = threadsAttrValue(key.decl)) d.fixit(t->range, std::to_string(reaching));
      d.hint(count > reaching ? "the barrier never completes: set threads(" + std::to_string(reaching) +
                                    ") or make the missing warps reach it"
                              : "the barrier completes before all participants arrive: set threads(" +
                                    std::to_string(reaching) + ")");
    } else {
      d.hint("syncthreads waits for every thread of the block (" + std::to_string(count) +
             "); use a named barrier with threads(" + std::to_string(reaching) + ") for a subset of warps");
    }
  }
}

} // namespace cake
