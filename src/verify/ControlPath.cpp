// Control paths and the warps that reach a statement (see ControlPath.h).
//
// walkControl is a recursive pre-order walk carrying the frame stack.  reachingWarps enumerates the
// candidate warps (at most 32 in a 1024-thread block) and filters them frame by frame with evalAtWarp:
// the shared ConstEvaluator in 64-bit arithmetic, with the per-warp builtins (warp, <role>.index,
// <role>.warp) bound through its hook and everything compile-time folded; it gives up (nullopt) on anything
// else, overflow and division by zero included.
#include "frontend/Limits.h"
#include "verify/ControlPath.h"

#include "frontend/Builtins.h"
#include "frontend/ConstEval.h"

#include <algorithm>

namespace cake {

namespace {
struct Walker {
  const UniformityAnalysis &u;
  const std::function<void(const Stmt &, const ControlPath &)> &visit;
  ControlPath path;

  bool nonUniformControl() const {
    for (const ControlFrame &f : path.frames) {
      if (f.kind == ControlFrame::Elect) return true;
      if (f.cond && u.of(*f.cond) != Uniformity::Block) return true;
      if (f.kind == ControlFrame::Loop) {
        auto &l = *cast<ForStmt>(f.stmt);
        for (const Expr *b : {l.lower.get(), l.upper.get(), l.step.get()})
          if (b && u.of(*b) != Uniformity::Block) return true;
      }
    }
    return false;
  }

  void walkBlock(const BlockStmt *b) {
    if (!b) return;
    for (auto &s : b->stmts)
      if (s) walk(*s);
  }

  void walk(const Stmt &s) {
    visit(s, path);
    switch (s.kind) {
    case StmtKind::Block: walkBlock(cast<BlockStmt>(&s)); break;
    case StmtKind::Role: {
      auto &r = *cast<RoleStmt>(&s);
      ControlPath saved = path;
      path.role = &r;
      walkBlock(r.body.get());
      // A return inside a role ends only that role's threads, which never reach later kernel-level code
      // either; keep them.
      saved.divergentReturns.insert(saved.divergentReturns.end(), path.divergentReturns.begin(),
                                    path.divergentReturns.end());
      path = std::move(saved);
      break;
    }
    case StmtKind::For: {
      auto &f = *cast<ForStmt>(&s);
      path.frames.push_back({ControlFrame::Loop, &s, nullptr});
      walkBlock(f.body.get());
      path.frames.pop_back();
      break;
    }
    case StmtKind::If: {
      auto &i = *cast<IfStmt>(&s);
      path.frames.push_back({ControlFrame::Then, &s, i.cond.get()});
      walkBlock(i.thenBody.get());
      path.frames.back().kind = ControlFrame::Else;
      if (i.elseBody) walk(*i.elseBody);
      path.frames.pop_back();
      break;
    }
    case StmtKind::Elect: {
      path.frames.push_back({ControlFrame::Elect, &s, nullptr});
      walkBlock(cast<ElectStmt>(&s)->body.get());
      path.frames.pop_back();
      break;
    }
    case StmtKind::Return:
      if (nonUniformControl()) path.divergentReturns.push_back(cast<ReturnStmt>(&s));
      break;
    default:
      break;
    }
  }
};

} // namespace

void walkControl(const Kernel &k, const UniformityAnalysis &u,
                 const std::function<void(const Stmt &, const ControlPath &)> &visit) {
  if (!k.body) return;
  Walker w{u, visit, {}};
  w.walkBlock(k.body.get());
}

std::optional<int64_t> evalAtWarp(const Expr &e, const WarpPoint &at) {
  ConstEvalOptions options;
  options.maxDepth = kMaxExprDepth;
  options.shortCircuitLogic = true;   // so `warp == 0 && tid.x < 8`-style mixes fold when the left side decides
  options.integerCasts = true;
  options.wrappingShiftLeft = true;
  options.cdiv = ConstEvalOptions::Cdiv::CeilingOfNonNegative;
  options.bind = [&at](const Expr &x) -> std::optional<int64_t> {
    if (auto *n = dynCast<NameExpr>(&x))
      for (const auto &[decl, value] : at.loopValues)
        if (n->decl == decl) return value;
    std::optional<BuiltinValue> v = builtinValueOf(x);
    if (!v) return std::nullopt;
    if (x.kind == ExprKind::Name) return *v == BuiltinValue::Warp ? std::optional<int64_t>(at.warp) : std::nullopt;
    if (*v != BuiltinValue::RoleIndex && *v != BuiltinValue::RoleWarp) return std::nullopt;
    auto *base = dynCast<NameExpr>(cast<MemberExpr>(&x)->base.get());
    if (!base || base->decl != static_cast<const Decl *>(at.role)) return std::nullopt;
    return *v == BuiltinValue::RoleIndex ? at.roleIndex : at.roleWarp;
  };
  return ConstEvaluator(std::move(options)).evaluate(e).optional();
}

WarpPoint warpPointAt(int64_t warp, const RoleStmt *role, const RoleInfo *info) {
  WarpPoint p;
  p.warp = warp;
  p.role = role;
  int64_t per = info ? info->warpsPerInstance() : 0;
  if (per) {
    p.roleIndex = (warp - info->firstWarp) / per;
    p.roleWarp = (warp - info->firstWarp) % per;
  }
  return p;
}

WarpReach reachingWarps(const ControlPath &path, const KernelInfo &info, const UniformityAnalysis &u, SyncScope scope) {
  WarpReach r;
  // Divergence first: it makes the warp set meaningless for anything that must be convergent.
  if (!path.divergentReturns.empty()) {
    r.divergentAt = path.divergentReturns.front();
    r.divergentWhy = "some threads may have left the kernel at an earlier 'return' under non-uniform control";
  }
  for (const ControlFrame &f : path.frames) {
    if (r.divergent()) break;
    if (f.kind == ControlFrame::Elect) {
      r.divergentAt = f.stmt;
      r.divergentWhy = "'elect' runs its body on one lane of each warp";
    } else if (f.cond && u.of(*f.cond) == Uniformity::Thread) {
      r.divergentAt = f.stmt;
      r.divergentCause = u.culprit(*f.cond, Uniformity::Thread);
      r.divergentWhy = "the condition is thread-varying";
    } else if (f.kind == ControlFrame::Loop) {
      auto &l = *cast<ForStmt>(f.stmt);
      const Uniformity splits = scope == SyncScope::Warp        ? Uniformity::Thread
                                : scope == SyncScope::Warpgroup ? Uniformity::Warp
                                                                : Uniformity::Warpgroup;
      for (const Expr *b : {l.lower.get(), l.upper.get(), l.step.get()})
        if (b && u.of(*b) >= splits && !r.divergent()) {
          r.divergentAt = f.stmt;
          r.divergentCause = u.culprit(*b, splits);
          r.divergentWhy = scope == SyncScope::Warp        ? "the loop's trip count differs between the lanes of a warp"
                           : scope == SyncScope::Warpgroup ? "the loop's trip count differs between the warps of a warpgroup"
                                                           : "the loop's trip count differs between threads";
        }
    }
  }

  // Candidate warps.
  std::vector<WarpPoint> points;
  const RoleInfo *role = path.role ? info.roleOf(path.role) : nullptr;
  if (path.role && (!role || !role->rangeKnown)) {
    r.known = false;
    return r;
  }
  if (role) {
    for (int64_t w = role->firstWarp; w < role->endWarp; ++w)
      points.push_back(warpPointAt(w, path.role, role));
  } else {
    for (int64_t w = 0; w < info.warps(); ++w) points.push_back(warpPointAt(w, nullptr, nullptr));
  }

  // The values of the variables of enclosing loops with compile-time bounds, in case a condition reads
  // one: every combination (the loops' bounds evaluated at the warp, outer loops' values bound).
  auto loopValueCombinations = [&](const WarpPoint &p) -> std::optional<std::vector<WarpPoint>> {
    std::vector<WarpPoint> combos{p};
    for (const ControlFrame &f : path.frames) {
      if (f.kind != ControlFrame::Loop) continue;
      auto &l = *cast<ForStmt>(f.stmt);
      std::vector<WarpPoint> next;
      for (const WarpPoint &c : combos) {
        if (next.size() >= kMaxLoopValueCombinations) return std::nullopt;
        auto lo = evalAtWarp(*l.lower, c), hi = evalAtWarp(*l.upper, c);
        auto step = l.step ? evalAtWarp(*l.step, c) : std::optional<int64_t>(1);
        if (!lo || !hi || !step || *step <= 0) {   // a runtime loop: its variable stays unbound
          next.push_back(c);
          continue;
        }
        for (int64_t v = *lo; v < *hi; v += *step) {
          if (next.size() >= kMaxLoopValueCombinations) return std::nullopt;
          WarpPoint bound = c;
          bound.loopValues.emplace_back(static_cast<const Decl *>(&l), v);
          next.push_back(std::move(bound));
        }
      }
      combos = std::move(next);
    }
    return combos;
  };
  auto conditionsHold = [&](const WarpPoint &p, const Expr **unknown) -> std::optional<bool> {
    for (const ControlFrame &f : path.frames) {
      if (!f.cond || (u.of(*f.cond) != Uniformity::Warp && u.of(*f.cond) != Uniformity::Warpgroup)) continue;
      auto v = evalAtWarp(*f.cond, p);
      if (!v) {
        *unknown = f.cond;
        return std::nullopt;
      }
      if ((f.kind == ControlFrame::Then) != (*v != 0)) return false;
    }
    return true;
  };

  for (const WarpPoint &p : points) {
    const Expr *unknown = nullptr;
    std::optional<bool> reaches = conditionsHold(p, &unknown);
    if (!reaches) {
      // A condition over a loop variable: does it hold in some iteration of the compile-time loops?
      std::optional<std::vector<WarpPoint>> combos = loopValueCombinations(p);
      if (combos)
        for (const WarpPoint &c : *combos) {
          const Expr *cause = nullptr;
          std::optional<bool> holds = conditionsHold(c, &cause);
          if (!holds) {
            reaches = std::nullopt;
            break;
          }
          reaches = reaches.value_or(false) || *holds;
        }
    }
    if (!reaches) {
      r.known = false;
      r.unknownCause = unknown;
      return r;
    }
    if (*reaches) r.warps.push_back(p.warp);
  }
  return r;
}

std::string describeWarps(const std::vector<int64_t> &warps) {
  if (warps.empty()) return "no warp";
  bool contiguous = true;
  for (size_t i = 1; i < warps.size(); ++i)
    if (warps[i] != warps[i - 1] + 1) contiguous = false;
  if (warps.size() == 1) return "warp " + std::to_string(warps[0]);
  if (contiguous) return "warps " + std::to_string(warps.front()) + ".." + std::to_string(warps.back() + 1);
  std::string s = "warps ";
  for (size_t i = 0; i < warps.size(); ++i) s += (i ? ", " : "") + std::to_string(warps[i]);
  return s;
}

} // namespace cake
