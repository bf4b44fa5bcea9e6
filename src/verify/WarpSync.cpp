// Verifier family: warp barriers, `syncwarp` / `syncwarp(MASK)` (E0665, E0666, E0667; E0601 when unproven).
//
// Obligation (PTX bar.warp.sync): every lane that executes it is in MASK, and every lane of MASK executes
// it (the same syncwarp, in every warp that reaches it at all).
//
// Algorithm, per syncwarp site (ControlPath's walk gives the enclosing role, ifs, elects and loops):
//   1. reachingWarps() says whether the site is under lane-divergent control.  Not divergent: all 32 lanes
//      of each reaching warp execute it, which is right for the full mask and wrong for any other (E0666).
//   2. Divergent: the lanes are simulated one warp at a time.  Starting from all 32 lanes of each candidate
//      warp (the role's warps, or the block's), each enclosing frame, outermost first, filters them: an `if`
//      keeps the lanes whose condition (evaluated with warp, lane, tid.x, ROLE.index, ROLE.warp and
//      ROLE.thread bound for that lane; compile-time values folded) takes the branch, an `elect` keeps the
//      lowest remaining lane (elect.sync picks the leader among the active lanes).  A loop with lane-varying
//      bounds, a divergent earlier return, or a condition that cannot be evaluated ends the simulation.
//      Each warp whose active set is non-empty must have exactly the mask's lanes; the first lane that breaks
//      it is reported: E0665 for the full mask, E0667 for a partial one.
//   3. When the simulation ends early, the full mask is reported as divergent (E0665: the uniformity
//      analysis already found the lane-varying construct) and a partial mask as unproven (E0601).
// The race checks (SharedRaces.cpp) rely on this family: they order two lanes of one warp at a full-mask
// syncwarp, which is only right when all 32 lanes execute it.
#include "frontend/Limits.h"
#include "verify/ControlPath.h"
#include "verify/Families.h"
#include "verify/SourceText.h"
#include "verify/VerifyContext.h"

#include "frontend/Builtins.h"
#include "frontend/ConstEval.h"
#include "frontend/Ops.h"

#include <cstdio>

namespace cake {

namespace {

constexpr uint32_t kFullMask = 0xffffffffu;

std::string maskText(uint32_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", m);
  return buf;
}

struct LanePoint {
  int64_t warp = 0, lane = 0;
  const RoleStmt *role = nullptr;
  int64_t roleIndex = 0, roleWarp = 0;
};

std::optional<int64_t> evalAtLane(const Expr &e, const LanePoint &at) {
  ConstEvalOptions options;
  options.maxDepth = kMaxExprDepth;
  options.shortCircuitLogic = true;
  options.integerCasts = true;
  options.wrappingShiftLeft = true;
  options.cdiv = ConstEvalOptions::Cdiv::CeilingOfNonNegative;
  options.bind = [&at](const Expr &x) -> std::optional<int64_t> {
    std::optional<BuiltinValue> v = builtinValueOf(x);
    if (!v) return std::nullopt;
    switch (*v) {
    case BuiltinValue::Warp: return at.warp;
    case BuiltinValue::Lane: return at.lane;
    case BuiltinValue::TidX: return at.warp * 32 + at.lane;
    case BuiltinValue::RoleIndex: case BuiltinValue::RoleWarp: case BuiltinValue::RoleThread: {
      auto *m = dynCast<MemberExpr>(&x);
      auto *base = m ? dynCast<NameExpr>(m->base.get()) : nullptr;
      if (!base || base->decl != static_cast<const Decl *>(at.role)) return std::nullopt;
      if (*v == BuiltinValue::RoleIndex) return at.roleIndex;
      if (*v == BuiltinValue::RoleWarp) return at.roleWarp;
      return at.roleWarp * 32 + at.lane;
    }
    default: return std::nullopt;
    }
  };
  return ConstEvaluator(std::move(options)).evaluate(e).optional();
}

// The lanes of each candidate warp that reach the site (bit i = lane i), or nullopt with the reason.
struct LaneSets {
  std::vector<std::pair<int64_t, uint32_t>> warps;   // (warp, active lanes), candidate warps in order
  std::string problem;
  const Expr *problemAt = nullptr;
};

LaneSets simulateLanes(const ControlPath &path, const KernelInfo &info) {
  LaneSets out;
  if (!path.divergentReturns.empty()) {
    out.problem = "some lanes may have left the kernel at an earlier 'return' under non-uniform control";
    return out;
  }
  const RoleInfo *role = path.role ? info.roleOf(path.role) : nullptr;
  if (path.role && (!role || !role->rangeKnown)) {
    out.problem = "the role's warp range is not known";
    return out;
  }
  int64_t first = role ? role->firstWarp : 0, end = role ? role->endWarp : info.warps();
  int64_t per = role ? role->warpsPerInstance() : 0;
  for (int64_t w = first; w < end; ++w) {
    uint32_t active = kFullMask;
    for (const ControlFrame &f : path.frames) {
      if (f.kind == ControlFrame::Elect) {
        active &= ~active + 1;   // the lowest active lane
        continue;
      }
      if (f.kind == ControlFrame::Loop) {
        auto &l = *cast<ForStmt>(f.stmt);
        for (const Expr *b : {l.lower.get(), l.upper.get(), l.step.get()}) {
          if (!b) continue;
          std::optional<int64_t> v0;
          for (int64_t lane = 0; lane < 32; ++lane) {
            LanePoint p{w, lane, path.role, per ? (w - first) / per : 0, per ? (w - first) % per : 0};
            std::optional<int64_t> v = evalAtLane(*b, p);
            if (!v || (v0 && *v != *v0)) {
              // Block-uniform bounds that merely are not constants are fine: every lane runs the same trips.
              out.problem = "the bounds of loop '" + l.name + "' cannot be shown equal for all lanes";
              out.problemAt = b;
              break;
            }
            v0 = v;
          }
          if (!out.problem.empty()) break;
        }
        if (!out.problem.empty()) return out;
        continue;
      }
      if (!f.cond) continue;
      uint32_t keep = 0;
      for (int64_t lane = 0; lane < 32; ++lane) {
        if (!(active & (1u << lane))) continue;
        LanePoint p{w, lane, path.role, per ? (w - first) / per : 0, per ? (w - first) % per : 0};
        std::optional<int64_t> v = evalAtLane(*f.cond, p);
        if (!v) {
          out.problem = "the condition cannot be evaluated per lane";
          out.problemAt = f.cond;
          return out;
        }
        if ((*v != 0) == (f.kind == ControlFrame::Then)) keep |= 1u << lane;
      }
      active = keep;
    }
    out.warps.push_back({w, active});
  }
  return out;
}

// Loops with block-uniform bounds are kept out of the lane simulation's way: only frames the uniformity
// analysis calls lane-varying need evaluating, but evaluating every frame is simpler and exact; a loop frame
// whose bounds are block-uniform runtime values is not a problem.
bool loopBoundsUniform(const ForStmt &l, const UniformityAnalysis &u) {
  for (const Expr *b : {l.lower.get(), l.upper.get(), l.step.get()})
    if (b && u.of(*b) != Uniformity::Block) return false;
  return true;
}

} // namespace

void verifyWarpSync(VerifyContext &ctx) {
  UniformityAnalysis uniformity(ctx.kernel(), ctx.info());
  walkControl(ctx.kernel(), uniformity, [&](const Stmt &s, const ControlPath &pathIn) {
    auto *op = dynCast<OpStmt>(&s);
    if (!op || !op->op || op->op->id != OpId::Syncwarp) return;
    uint32_t mask = kFullMask;
    if (!op->dsts.empty() && op->dsts[0]) {
      std::optional<int64_t> m = ConstEvaluator().evaluate(*op->dsts[0]).optional();
      if (!m) {
        ctx.reportUnproven(op->dsts[0]->range, "which lanes syncwarp waits for", "its mask is not a constant");
        return;
      }
      mask = static_cast<uint32_t>(*m);
    }
    std::string what = mask == kFullMask ? "syncwarp" : "syncwarp(" + maskText(mask) + ")";
    WarpReach reach = reachingWarps(pathIn, ctx.info(), uniformity, SyncScope::Warp);
    if (!reach.divergent()) {
      if (mask == kFullMask) {
        ctx.recordProven();
        return;
      }
      ctx.reportFailure(DiagKind::SyncwarpLanesOutsideMask, op->range, what, maskText(mask))
          .note(op->range, "no enclosing condition depends on the lane, so all 32 lanes of each warp that gets here execute it")
          .hint("write 'syncwarp;' for the whole warp, or put it under the condition that selects the mask's lanes");
      return;
    }
    // Lane simulation; loop frames with block-uniform bounds do not split lanes and are dropped first.
    ControlPath path = pathIn;
    std::erase_if(path.frames, [&](const ControlFrame &f) {
      return f.kind == ControlFrame::Loop && loopBoundsUniform(*cast<ForStmt>(f.stmt), uniformity);
    });
    LaneSets lanes = simulateLanes(path, ctx.info());
    if (!lanes.problem.empty()) {
      if (mask == kFullMask) {
        auto d = ctx.reportFailure(DiagKind::SyncwarpUnderDivergence, op->range, what, reach.divergentWhy);
        if (reach.divergentCause) d.note(reach.divergentCause->range, "this differs between the lanes of a warp");
        else if (reach.divergentAt) d.note(reach.divergentAt->range, "the lanes of a warp split here");
        d.hint("move 'syncwarp;' out of the lane-dependent region, or give syncwarp(MASK) exactly the lanes that reach it");
        return;
      }
      auto d = ctx.reportUnproven(op->range, "that exactly the lanes of " + maskText(mask) + " reach " + what, lanes.problem);
      if (lanes.problemAt) d.note(lanes.problemAt->range, "evaluated per lane here");
      return;
    }
    for (const auto &[warp, active] : lanes.warps) {
      if (active == 0 || active == mask) continue;
      uint32_t extra = active & ~mask, missing = mask & ~active;
      int lane = __builtin_ctz(extra ? extra : missing);
      std::string why = "in warp " + std::to_string(warp) + ", lane " + std::to_string(lane) +
                        (extra ? " executes it but is not in the mask" : " is in the mask but does not reach it") +
                        " (the lanes that reach it: " + maskText(active) + ")";
      DiagBuilder d = mask == kFullMask
                          ? ctx.reportFailure(DiagKind::SyncwarpUnderDivergence, op->range, what, why)
                          : ctx.reportFailure(DiagKind::SyncwarpMaskMismatch, op->range, what, maskText(mask), why);
      if (reach.divergentAt) d.note(headOf(reach.divergentAt->range), "the lanes of the warp split here");
      d.hint("give syncwarp the mask of the lanes that reach it: syncwarp(" + maskText(active) + ")");
      return;
    }
    ctx.recordProven();
  });
}

} // namespace cake
