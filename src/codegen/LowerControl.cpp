// Control flow: blocks, statement dispatch, if/else, for loops, return, and short-circuit && / ||.
//
//   if c { A } else { B }   constant c: only the taken side is lowered (this is what makes `if j == 0`
//                           inside unrolled loops free); else  @!p bra ELSE; A; bra END; ELSE: B; END:
//   for i in lo..hi unroll  lo, hi, step must be constants: the body is lowered once per iteration with i
//                           bound to a constant (so register-array indices fold);
//   for i in lo..hi         a PTX loop with the test at the bottom:
//                             i = lo; [setp.ge p, i, hi; @p bra END;]   (guard omitted when lo < hi is known)
//                           LOOP: body; i += step; setp.lt p, i, hi; @p bra LOOP; END:
//                           hi and step are evaluated once, before the loop.
//   for i in lo..hi unroll(N)
//                           partial unrolling (step a constant s): a PTX loop whose trip lowers the body N
//                           times, for i = iv, iv + s, ..., iv + (N-1)s, then the remainder: with constant
//                           bounds (T iterations) the loop makes T / N trips and T % N copies follow with i
//                           constant; otherwise the loop runs while iv + (N-1)s < hi and a rolled loop
//                           finishes the last (fewer than N) iterations (lowerPartialUnroll).
//   a && b                  when b reads memory it is evaluated only if a holds (a branch), else and.pred.
#include "codegen/KernelLowering.h"

#include "frontend/ConstEval.h"

#include <algorithm>

namespace cake::codegen {

namespace {
bool readsMemoryOrShuffles(const Expr &e) {
  switch (e.kind) {
  case ExprKind::Index: return true;   // conservative: may be a load
  case ExprKind::Call: {
    const auto *c = cast<CallExpr>(&e);
    if (c->callee.rfind("shfl.", 0) == 0 || c->callee.rfind("warp.", 0) == 0) return true;
    for (const auto &a : c->args)
      if (readsMemoryOrShuffles(*a)) return true;
    return false;
  }
  case ExprKind::Unary: return readsMemoryOrShuffles(*cast<UnaryExpr>(&e)->operand);
  case ExprKind::Binary: {
    const auto *b = cast<BinaryExpr>(&e);
    return readsMemoryOrShuffles(*b->lhs) || readsMemoryOrShuffles(*b->rhs);
  }
  default: return false;
  }
}
// A lower bound on the statements lowering `s` charges (lowerStmt charges one per statement, once per
// unrolled iteration), saturating at `cap`: unrolled loops with constant bounds multiply, an `if` counts
// its cheaper side, bounds that are not constants count no iterations.  Lets the outermost unrolled loop
// refuse a nest that would exceed the budget before materialising any of it.
size_t unrolledStatements(const Stmt &s, size_t cap) {
  auto add = [cap](size_t a, size_t b) { return a > cap - std::min(cap, b) ? cap : a + b; };
  switch (s.kind) {
  case StmtKind::Block: {
    size_t n = 1;
    for (const auto &c : cast<BlockStmt>(&s)->stmts)
      if (c && (n = add(n, unrolledStatements(*c, cap))) >= cap) return cap;
    return n;
  }
  case StmtKind::If: {
    auto &i = *cast<IfStmt>(&s);
    size_t t = i.thenBody ? unrolledStatements(*i.thenBody, cap) : 0;
    size_t e = i.elseBody ? unrolledStatements(*i.elseBody, cap) : 0;
    return add(1, std::min(t, e));
  }
  case StmtKind::Role: return add(1, cast<RoleStmt>(&s)->body ? unrolledStatements(*cast<RoleStmt>(&s)->body, cap) : 0);
  case StmtKind::Elect: return add(1, cast<ElectStmt>(&s)->body ? unrolledStatements(*cast<ElectStmt>(&s)->body, cap) : 0);
  case StmtKind::For: {
    auto &f = *cast<ForStmt>(&s);
    size_t body = f.body ? unrolledStatements(*f.body, cap) : 0;
    if (!f.unroll) return add(1, body);
    ConstEvaluator ce;
    auto lo = f.lower ? ce.evaluate(*f.lower).optional() : std::nullopt;
    auto hi = f.upper ? ce.evaluate(*f.upper).optional() : std::nullopt;
    auto st = f.step ? ce.evaluate(*f.step).optional() : std::optional<int64_t>(1);
    if (!lo || !hi || !st || *st <= 0 || *hi <= *lo) return 1;
    uint64_t trips = (static_cast<uint64_t>(*hi - *lo) + static_cast<uint64_t>(*st) - 1) / static_cast<uint64_t>(*st);
    if (body > 0 && trips > cap / body) return cap;
    return add(1, static_cast<size_t>(trips) * body);
  }
  default: return 1;
  }
}
} // namespace

void KernelLowering::lowerBlock(const BlockStmt &b) {
  for (const auto &s : b.stmts) {
    if (diags_.limitReached()) return;
    lowerStmt(*s);
  }
}

void KernelLowering::lowerStmt(const Stmt &s) {
  if (!chargeInstructions(1, s.range)) return;
  SourceRange saved = out_.location();
  out_.setLocation(s.range);
  switch (s.kind) {
  case StmtKind::Block: lowerBlock(*cast<BlockStmt>(&s)); break;
  case StmtKind::Let: lowerLet(*cast<LetStmt>(&s)); break;
  case StmtKind::Var: lowerVar(*cast<VarStmt>(&s)); break;
  case StmtKind::Shared:
  case StmtKind::MBarrier:
  case StmtKind::Barrier: break;   // laid out by sema, bound at kernel entry
  case StmtKind::Role: lowerRole(*cast<RoleStmt>(&s)); break;
  case StmtKind::For: lowerFor(*cast<ForStmt>(&s)); break;
  case StmtKind::If: lowerIf(*cast<IfStmt>(&s)); break;
  case StmtKind::Elect: lowerElect(*cast<ElectStmt>(&s)); break;
  case StmtKind::Return: out_.inst("ret"); break;
  case StmtKind::Assign: lowerAssign(*cast<AssignStmt>(&s)); break;
  case StmtKind::Op: lowerOp(*cast<OpStmt>(&s)); break;
  case StmtKind::Call: CAKE_INTERNAL_ERROR("a call statement reached codegen (inlining replaces it)");
  }
  out_.setLocation(saved);
}

void KernelLowering::lowerIf(const IfStmt &s) {
  Value c = toPred(lowerExpr(*s.cond));
  if (c.isConst()) {
    if (c.constant->i) lowerBlock(*s.thenBody);
    else if (s.elseBody) lowerStmt(*s.elseBody);
    return;
  }
  std::string p = reg(c);
  std::string elseLabel = out_.newLabel("else"), endLabel = out_.newLabel("endif");
  out_.setLocation(s.cond->range);
  out_.instGuarded("!" + p, "bra " + (s.elseBody ? elseLabel : endLabel));
  out_.setLocation(s.range);
  lowerBlock(*s.thenBody);
  if (s.elseBody) {
    out_.inst("bra " + endLabel);
    out_.label(elseLabel);
    lowerStmt(*s.elseBody);
  }
  out_.label(endLabel);
}

void KernelLowering::lowerFor(const ForStmt &s) {
  Value lo = lowerExpr(*s.lower);
  Value hi = lowerExpr(*s.upper);
  Value step = s.step ? lowerExpr(*s.step) : Value::ofConst(Scalar::IntLit, ConstScalar::ofInt(1));
  // The loop variable's type: the typed bound, else i32.
  Scalar ty = Scalar::I32;
  for (const Value *v : {&lo, &hi})
    if (!isUntyped(v->type.elem) && isInteger(v->type.elem)) ty = concreteScalar(v->type.elem);
  auto cstep = constInt(step);
  if (cstep && *cstep <= 0) {
    diags_.report(DiagKind::CannotUnroll, s.step ? s.step->range : s.range,
                  "the step " + std::to_string(*cstep) + " is not positive");
    return;
  }
  if (s.unroll) {
    auto clo = constInt(lo), chi = constInt(hi);
    if (!clo || !chi || !cstep) {
      const Expr &culprit = !clo ? *s.lower : !chi ? *s.upper : *s.step;
      diags_.report(DiagKind::CannotUnroll, culprit.range, "this bound or step is not a compile-time constant")
          .hint("remove 'unroll' to get a run-time loop, or make the bound depend only on compile-time parameters");
      return;
    }
    int64_t trips = *chi > *clo ? (*chi - *clo + *cstep - 1) / *cstep : 0;
    if (trips > 4096) {
      diags_.report(DiagKind::CannotUnroll, s.range, std::to_string(trips) + " iterations (the limit is 4096)");
      return;
    }
    if (unrollDepth_ == 0 && s.body) {   // the whole nest, before any of it is lowered
      size_t body = unrolledStatements(*s.body, instructionBudget_ + 1);
      if (body > 0 && static_cast<size_t>(trips) > instructionBudget_ / body) {
        chargeInstructions(instructionBudget_ + 1, s.range);   // reports E0704 once
        return;
      }
    }
    ++unrollDepth_;
    for (int64_t i = *clo; i < *chi; i += *cstep) {
      if (diags_.limitReached() || budgetReported_) break;
      env_[static_cast<const Decl *>(&s)] = Value::ofInt(ty, i);
      lowerBlock(*s.body);
    }
    --unrollDepth_;
    return;
  }
  if (s.unrollCount > 1) {
    if (!cstep) {
      diags_.report(DiagKind::CannotUnroll, s.step->range, "unroll(N) needs a compile-time constant step")
          .hint("make the step a constant, or remove unroll(N)");
      return;
    }
    lowerPartialUnroll(s, lo, hi, *cstep, ty);
    return;
  }
  ValueType vt = ValueType::scalar(ty);
  Value iv = freshValue(vt);
  mutableRegs_.insert(iv.regs[0]);
  copyInto(adapt(lo, vt), iv);
  Value hiReg = hi.isConst() ? adapt(hi, vt) : hi;
  if (!hiReg.isConst() && !(hiReg.type == vt)) hiReg = convert(hiReg, vt, s.upper->range);
  Value stepV = step.isConst() ? adapt(step, vt) : step;
  if (!stepV.isConst() && !(stepV.type == vt)) stepV = convert(stepV, vt, s.step->range);
  std::string ts(ptxArithType(ty));
  std::string loopLabel = out_.newLabel("loop"), endLabel = out_.newLabel("endloop");
  auto clo = constInt(lo), chi = constInt(hi);
  bool knownNonEmpty = clo && chi && *clo < *chi;
  if (!knownNonEmpty) {
    std::string p = out_.newReg(RegClass::Pred);
    out_.inst("setp.ge." + ts + " " + p + ", " + iv.regs[0] + ", " + operand(hiReg));
    out_.instGuarded(p, "bra " + endLabel);
  }
  out_.label(loopLabel);
  // Counting up by a positive constant from a non-negative start, the variable stays at least that start
  // in the body (the bound is an i32, so it cannot wrap).
  Value ivInBody = iv;
  if (knownNonNegative(lo) && cstep && *cstep > 0 &&
      (ty == Scalar::I32 || (ty == Scalar::U32 && knownNonNegative(hi))))
    ivInBody.lowerBound = lowerBoundOf(lo);
  env_[static_cast<const Decl *>(&s)] = ivInBody;
  lowerBlock(*s.body);
  out_.setLocation(s.range);
  out_.inst("add." + ts + " " + iv.regs[0] + ", " + iv.regs[0] + ", " + operand(stepV));
  std::string p = out_.newReg(RegClass::Pred);
  out_.inst("setp.lt." + ts + " " + p + ", " + iv.regs[0] + ", " + operand(hiReg));
  out_.instGuarded(p, "bra " + loopLabel);
  out_.label(endLabel);
}

// for i in lo..hi step s unroll(N), s a constant (see the file comment).  Copy k of the body sees
// i = iv + k*s.  Constant bounds: the trip count T is known, the main loop runs T / N trips and the
// remainder is T % N straight-line copies with constant i.  Otherwise the main loop runs while
// iv + (N-1)*s < hi and a rolled loop finishes the remaining (fewer than N) iterations.
void KernelLowering::lowerPartialUnroll(const ForStmt &s, const Value &lo, const Value &hi, int64_t step, Scalar ty) {
  const int64_t n = s.unrollCount;
  ValueType vt = ValueType::scalar(ty);
  std::string ts(ptxArithType(ty));
  const Decl *var = static_cast<const Decl *>(&s);
  auto clo = constInt(lo), chi = constInt(hi);
  bool nonNegative = knownNonNegative(lo) && (ty == Scalar::I32 || (ty == Scalar::U32 && knownNonNegative(hi)));
  std::optional<int64_t> start = nonNegative ? lowerBoundOf(lo) : std::nullopt;
  // The N copies of one trip, the loop variable in `iv`.
  auto copies = [&](const Value &iv) {
    for (int64_t k = 0; k < n; ++k) {
      if (diags_.limitReached() || budgetReported_) return;
      Value ik = iv;
      if (k > 0) {
        ik = freshValue(vt);
        out_.setLocation(s.range);
        out_.inst("add." + ts + " " + ik.regs[0] + ", " + iv.regs[0] + ", " + std::to_string(k * step));
      }
      if (start) ik.lowerBound = *start + k * step;
      env_[var] = ik;
      lowerBlock(*s.body);
    }
  };
  auto constantCopy = [&](int64_t i) {
    ++unrollDepth_;
    env_[var] = Value::ofInt(ty, i);
    lowerBlock(*s.body);
    --unrollDepth_;
  };
  Value iv = freshValue(vt);
  mutableRegs_.insert(iv.regs[0]);
  std::string loopLabel = out_.newLabel("loop"), endLabel = out_.newLabel("endloop");
  if (clo && chi) {
    int64_t trips = *chi > *clo ? (*chi - *clo + step - 1) / step : 0;
    int64_t groups = trips / n, rest = trips % n;
    int64_t mainEnd = *clo + groups * n * step;
    if (groups > 0) {
      copyInto(adapt(lo, vt), iv);
      out_.label(loopLabel);
      copies(iv);
      out_.setLocation(s.range);
      out_.inst("add." + ts + " " + iv.regs[0] + ", " + iv.regs[0] + ", " + std::to_string(n * step));
      std::string p = out_.newReg(RegClass::Pred);
      out_.inst("setp.lt." + ts + " " + p + ", " + iv.regs[0] + ", " + std::to_string(mainEnd));
      out_.instGuarded(p, "bra " + loopLabel);
    }
    for (int64_t r = 0; r < rest && !diags_.limitReached() && !budgetReported_; ++r) constantCopy(mainEnd + r * step);
    out_.label(endLabel);
    return;
  }
  copyInto(adapt(lo, vt), iv);
  Value hiReg = hi.isConst() ? adapt(hi, vt) : hi;
  if (!hiReg.isConst() && !(hiReg.type == vt)) hiReg = convert(hiReg, vt, s.upper->range);
  std::string restLabel = out_.newLabel("rest"), restLoopLabel = out_.newLabel("restloop");
  // main: while iv + (N-1)*step < hi
  auto lastOfTripBelowHi = [&](const std::string &target, bool branchIfBelow) {
    Value t = freshValue(vt);
    out_.inst("add." + ts + " " + t.regs[0] + ", " + iv.regs[0] + ", " + std::to_string((n - 1) * step));
    std::string p = out_.newReg(RegClass::Pred);
    out_.inst(std::string(branchIfBelow ? "setp.lt." : "setp.ge.") + ts + " " + p + ", " + t.regs[0] + ", " +
              operand(hiReg));
    out_.instGuarded(p, "bra " + target);
  };
  out_.setLocation(s.range);
  lastOfTripBelowHi(restLabel, /*branchIfBelow=*/false);
  out_.label(loopLabel);
  copies(iv);
  out_.setLocation(s.range);
  out_.inst("add." + ts + " " + iv.regs[0] + ", " + iv.regs[0] + ", " + std::to_string(n * step));
  lastOfTripBelowHi(loopLabel, /*branchIfBelow=*/true);
  // remainder: fewer than N iterations, a rolled loop
  out_.label(restLabel);
  std::string p = out_.newReg(RegClass::Pred);
  out_.inst("setp.ge." + ts + " " + p + ", " + iv.regs[0] + ", " + operand(hiReg));
  out_.instGuarded(p, "bra " + endLabel);
  out_.label(restLoopLabel);
  Value ivInBody = iv;
  if (start) ivInBody.lowerBound = *start;
  env_[var] = ivInBody;
  lowerBlock(*s.body);
  out_.setLocation(s.range);
  out_.inst("add." + ts + " " + iv.regs[0] + ", " + iv.regs[0] + ", " + std::to_string(step));
  std::string q = out_.newReg(RegClass::Pred);
  out_.inst("setp.lt." + ts + " " + q + ", " + iv.regs[0] + ", " + operand(hiReg));
  out_.instGuarded(q, "bra " + restLoopLabel);
  out_.label(endLabel);
}

Value KernelLowering::lowerLogical(const BinaryExpr &e) {
  bool isAnd = e.op == BinaryOp::LogAnd;
  Value a = toPred(lowerExpr(*e.lhs));
  if (a.isConst()) {
    if (isAnd && !a.constant->i) return a;
    if (!isAnd && a.constant->i) return a;
    return toPred(lowerExpr(*e.rhs));
  }
  if (!readsMemoryOrShuffles(*e.rhs)) {
    Value b = toPred(lowerExpr(*e.rhs));
    if (b.isConst()) {
      if (isAnd) return b.constant->i ? a : b;
      return b.constant->i ? b : a;
    }
    std::string d = out_.newReg(RegClass::Pred);
    out_.inst(std::string(isAnd ? "and.pred " : "or.pred ") + d + ", " + reg(a) + ", " + reg(b));
    return Value::ofRegs(ValueType::scalar(Scalar::Pred), {d});
  }
  // Short circuit: the right side may load memory that is only valid when the left side allows it.
  std::string d = out_.newReg(RegClass::Pred);
  std::string skip = out_.newLabel(isAnd ? "and" : "or");
  out_.inst("mov.pred " + d + ", " + reg(a));
  out_.instGuarded(isAnd ? "!" + d : d, "bra " + skip);
  Value b = toPred(lowerExpr(*e.rhs));
  out_.inst("mov.pred " + d + ", " + reg(b));
  out_.label(skip);
  return Value::ofRegs(ValueType::scalar(Scalar::Pred), {d});
}

} // namespace cake::codegen
