// Control paths and the warps that reach a statement (see ControlPath.h).
//
// walkControl is a recursive pre-order walk carrying the frame stack.  reachingWarps enumerates the
// candidate warps (at most 32 in a 1024-thread block) and filters them frame by frame with evalAtWarp, a
// small concrete evaluator in 64-bit arithmetic that binds the per-warp builtins and folds everything
// compile-time; it gives up (nullopt) on anything else, overflow and division by zero included.
#include "verify/ControlPath.h"

#include "frontend/Builtins.h"

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

constexpr unsigned kMaxEvalDepth = 256;

std::optional<int64_t> eval(const Expr &e, const WarpPoint &at, unsigned depth) {
  if (depth > kMaxEvalDepth) return std::nullopt;
  switch (e.kind) {
  case ExprKind::IntLit: {
    auto v = cast<IntLitExpr>(&e)->value;
    if (v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(v);
  }
  case ExprKind::BoolLit: return cast<BoolLitExpr>(&e)->value ? 1 : 0;
  case ExprKind::Name: {
    const Decl *d = cast<NameExpr>(&e)->decl;
    if (!d) return std::nullopt;
    if (d->declKind == DeclKind::CtParam) return static_cast<const CtParam *>(d)->value;
    if (d->declKind == DeclKind::Let) {
      auto *let = static_cast<const LetStmt *>(d);
      return let->init ? eval(*let->init, at, depth + 1) : std::nullopt;
    }
    if (d->declKind == DeclKind::Builtin) {
      auto v = static_cast<const BuiltinDecl *>(d)->value;
      if (v == BuiltinValue::Warp) return at.warp;
    }
    return std::nullopt;
  }
  case ExprKind::Member: {
    auto v = builtinValueOf(e);
    if (!v) return std::nullopt;
    auto *m = cast<MemberExpr>(&e);
    auto *base = dynCast<NameExpr>(m->base.get());
    if (*v == BuiltinValue::RoleIndex || *v == BuiltinValue::RoleWarp) {
      if (!base || base->decl != static_cast<const Decl *>(at.role)) return std::nullopt;
      return *v == BuiltinValue::RoleIndex ? at.roleIndex : at.roleWarp;
    }
    return std::nullopt;
  }
  case ExprKind::Unary: {
    auto &un = *cast<UnaryExpr>(&e);
    auto x = eval(*un.operand, at, depth + 1);
    if (!x) return std::nullopt;
    switch (un.op) {
    case UnaryOp::Neg: if (*x == INT64_MIN) return std::nullopt; return -*x;
    case UnaryOp::Not: return *x == 0 ? 1 : 0;
    case UnaryOp::BitNot: return ~*x;
    }
    return std::nullopt;
  }
  case ExprKind::Binary: {
    auto &b = *cast<BinaryExpr>(&e);
    auto l = eval(*b.lhs, at, depth + 1);
    if (!l) return std::nullopt;
    // Short-circuit so `warp == 0 && tid.x < 8`-style mixes still fold when the left side decides.
    if (b.op == BinaryOp::LogAnd && *l == 0) return 0;
    if (b.op == BinaryOp::LogOr && *l != 0) return 1;
    auto r = eval(*b.rhs, at, depth + 1);
    if (!r) return std::nullopt;
    int64_t x = *l, y = *r, out = 0;
    switch (b.op) {
    case BinaryOp::Add: if (__builtin_add_overflow(x, y, &out)) return std::nullopt; return out;
    case BinaryOp::Sub: if (__builtin_sub_overflow(x, y, &out)) return std::nullopt; return out;
    case BinaryOp::Mul: if (__builtin_mul_overflow(x, y, &out)) return std::nullopt; return out;
    case BinaryOp::Div: if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt; return x / y;
    case BinaryOp::Rem: if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt; return x % y;
    case BinaryOp::Shl: if (y < 0 || y >= 63) return std::nullopt; return x << y;
    case BinaryOp::Shr: if (y < 0 || y >= 64) return std::nullopt; return x >> y;
    case BinaryOp::BitAnd: return x & y;
    case BinaryOp::BitOr: return x | y;
    case BinaryOp::BitXor: return x ^ y;
    case BinaryOp::Eq: return x == y;
    case BinaryOp::Ne: return x != y;
    case BinaryOp::Lt: return x < y;
    case BinaryOp::Le: return x <= y;
    case BinaryOp::Gt: return x > y;
    case BinaryOp::Ge: return x >= y;
    case BinaryOp::LogAnd: return (x != 0) && (y != 0);
    case BinaryOp::LogOr: return (x != 0) || (y != 0);
    }
    return std::nullopt;
  }
  case ExprKind::Call: {
    auto &c = *cast<CallExpr>(&e);
    if ((c.callee == "i32" || c.callee == "u32" || c.callee == "i64") && c.args.size() == 1 && c.args[0])
      return eval(*c.args[0], at, depth + 1);
    if ((c.callee == "min" || c.callee == "max" || c.callee == "cdiv") && c.args.size() == 2 && c.args[0] && c.args[1]) {
      auto a = eval(*c.args[0], at, depth + 1), b = eval(*c.args[1], at, depth + 1);
      if (!a || !b) return std::nullopt;
      if (c.callee == "min") return std::min(*a, *b);
      if (c.callee == "max") return std::max(*a, *b);
      if (*b <= 0 || *a < 0) return std::nullopt;
      return *a / *b + (*a % *b != 0);
    }
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}
} // namespace

void walkControl(const Kernel &k, const UniformityAnalysis &u,
                 const std::function<void(const Stmt &, const ControlPath &)> &visit) {
  if (!k.body) return;
  Walker w{u, visit, {}};
  w.walkBlock(k.body.get());
}

std::optional<int64_t> evalAtWarp(const Expr &e, const WarpPoint &at) { return eval(e, at, 0); }

WarpReach reachingWarps(const ControlPath &path, const KernelInfo &info, const UniformityAnalysis &u) {
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
      for (const Expr *b : {l.lower.get(), l.upper.get(), l.step.get()})
        if (b && u.of(*b) != Uniformity::Block && !r.divergent()) {
          r.divergentAt = f.stmt;
          r.divergentCause = u.culprit(*b, Uniformity::Warp);
          r.divergentWhy = "the loop's trip count differs between threads";
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
    int64_t per = role->warpsPerInstance();
    for (int64_t w = role->firstWarp; w < role->endWarp; ++w)
      points.push_back({w, path.role, per ? (w - role->firstWarp) / per : 0, per ? (w - role->firstWarp) % per : 0});
  } else {
    for (int64_t w = 0; w < info.warps(); ++w) points.push_back({w, nullptr, 0, 0});
  }

  for (const WarpPoint &p : points) {
    bool reaches = true;
    for (const ControlFrame &f : path.frames) {
      if (!f.cond || u.of(*f.cond) != Uniformity::Warp) continue;
      auto v = evalAtWarp(*f.cond, p);
      if (!v) {
        r.known = false;
        r.unknownCause = f.cond;
        return r;
      }
      bool holds = *v != 0;
      if ((f.kind == ControlFrame::Then) != holds) { reaches = false; break; }
    }
    if (reaches) r.warps.push_back(p.warp);
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
