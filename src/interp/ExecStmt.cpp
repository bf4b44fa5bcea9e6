// Statements of one warp under an active-lane mask, and barriers (see WarpExecutor.h).
#include "frontend/Operators.h"
#include "frontend/Ops.h"
#include "interp/WarpExecutor.h"

namespace cake::interp {

constexpr unsigned kMaxRegisterElements = 1u << 16;   // per thread (the GPU has 255 registers)

WarpExecutor::WarpExecutor(LaunchState &l, BlockState &b, int w) : launch(l), block(b), warp(w) {}

std::string WarpExecutor::blockText() const {
  return "block (" + std::to_string(block.index[0]) + ", " + std::to_string(block.index[1]) + ", " +
         std::to_string(block.index[2]) + ")";
}

std::string WarpExecutor::whereText(int lane) const {
  return blockText() + ", thread " + std::to_string(warp * kLanes + lane) + " (warp " + std::to_string(warp) +
         ", lane " + std::to_string(lane) + ")";
}

void WarpExecutor::fail(DiagKind kind, SourceRange where, std::vector<std::string> args, std::string hint) {
  DiagBuilder d = launch.diags->reportArgs(kind, where, std::move(args));
  if (!hint.empty()) d.hint(std::move(hint));
  if (launch.kernel) d.note(launch.kernel->nameRange, "while running kernel '" + launch.kernel->name + "'");
  throw RunFailed{};
}

void WarpExecutor::run() { execBlock(*launch.kernel->body, alive); }

void WarpExecutor::execBlock(const BlockStmt &b, LaneMask mask) {
  for (const Ptr<Stmt> &s : b.stmts) {
    mask &= alive;
    if (!mask) return;
    if (++launch.steps > launch.maxSteps)
      fail(DiagKind::InterpStepLimit, s->range, {std::to_string(launch.maxSteps)}, "run at a smaller shape or raise --max-steps");
    current = s.get();
    execStmt(*s, mask);
  }
}

void WarpExecutor::execStmt(const Stmt &s, LaneMask mask) {
  switch (s.kind) {
  case StmtKind::Block: execBlock(*cast<BlockStmt>(&s), mask); return;
  case StmtKind::Let: {
    auto *let = cast<LetStmt>(&s);
    WarpValue v = eval(*let->init, mask);
    ValueKind want = kindOf(let->type);
    if (let->type && !let->type->isUntyped()) v = adapt(std::move(v), want, mask);
    if (unsigned w = widthOf(let->type); v.width == 1 && w > 1) {   // a constant broadcast to a vector
      WarpValue splat(v.kind, w);
      for (int l : lanesOf(mask))
        for (unsigned e = 0; e < w; ++e) splat.at(l, e) = v.at(l);
      v = std::move(splat);
    }
    wgmmaValueAccess(let, true, s.range);
    env[let] = std::move(v);
    return;
  }
  case StmtKind::Var: {
    auto *var = cast<VarStmt>(&s);
    if (var->type && var->type->elementScalar() != ScalarKind::Pred && isF8Scalar(var->type->elementScalar()))
      fail(DiagKind::InterpUnsupported, s.range, {"f8 types"});
    if (widthOf(var->type) > kMaxRegisterElements)
      fail(DiagKind::InterpUnsupported, s.range, {"register arrays of more than " + std::to_string(kMaxRegisterElements) + " elements"});
    WarpValue v(kindOf(var->type), widthOf(var->type));
    if (var->init) {
      WarpValue init = evalAs(*var->init, mask, v.kind);
      for (int l : lanesOf(mask))
        for (unsigned e = 0; e < v.width; ++e) v.at(l, e) = init.at(l, init.width == 1 ? 0 : e);
    }
    wgmmaValueAccess(var, true, s.range);
    env[var] = std::move(v);
    return;
  }
  case StmtKind::Shared: case StmtKind::MBarrier: case StmtKind::Barrier: return;   // allocated per block
  case StmtKind::Role: {
    auto *r = cast<RoleStmt>(&s);
    const RoleInfo *info = launch.info->roleOf(r);
    if (!info) CAKE_INTERNAL_ERROR("interpreter: a role without RoleInfo");
    if (warp < info->firstWarp || warp >= info->endWarp) return;
    const RoleInfo *outer = role;
    role = info;
    execBlock(*r->body, mask);
    role = outer;
    return;
  }
  case StmtKind::For: execFor(*cast<ForStmt>(&s), mask); return;
  case StmtKind::If: execIf(*cast<IfStmt>(&s), mask); return;
  case StmtKind::Elect: execBlock(*cast<ElectStmt>(&s)->body, LaneMask(1) << __builtin_ctz(mask)); return;
  case StmtKind::Return: alive &= ~mask; return;
  case StmtKind::Assign: execAssign(*cast<AssignStmt>(&s), mask); return;
  case StmtKind::Op: execOp(*cast<OpStmt>(&s), mask); return;
  case StmtKind::Call: CAKE_INTERNAL_ERROR("interpreter: a call statement survived inlining");
  }
}

void WarpExecutor::execFor(const ForStmt &f, LaneMask mask) {
  ValueKind k = kindOf(f.type);
  if (k.isUntyped()) k = ValueKind::of(ScalarKind::I32);
  WarpValue i = evalAs(*f.lower, mask, k), hi = evalAs(*f.upper, mask, k);
  WarpValue step = f.step ? evalAs(*f.step, mask, k) : WarpValue::uniformInt(k, 1);
  auto below = [&](LaneMask m) {
    LaneMask r = 0;
    for (int l : lanesOf(m))
      if (i.at(l).i < hi.at(l).i) r |= LaneMask(1) << l;
    return r;
  };
  LaneMask active = below(mask);
  while ((active &= alive) != 0) {
    env[&f] = i;
    execBlock(*f.body, active);
    for (int l : lanesOf(active)) i.at(l).i = wrapToInt(int64_t(uint64_t(i.at(l).i) + uint64_t(step.at(l).i)), k.scalar);
    active = below(active);
  }
}

void WarpExecutor::execIf(const IfStmt &s, LaneMask mask) {
  WarpValue c = eval(*s.cond, mask);
  LaneMask taken = 0;
  for (int l : lanesOf(mask))
    if (c.at(l).i) taken |= LaneMask(1) << l;
  if (taken) execBlock(*s.thenBody, taken);
  LaneMask rest = mask & ~taken & alive;
  if (rest && s.elseBody) execStmt(*s.elseBody, rest);
}


void WarpExecutor::execAssign(const AssignStmt &a, LaneMask mask) {
  WarpValue v = eval(*a.value, mask);
  Place p = place(*a.target, mask, "store");
  if (a.op != AssignOp::Set) {
    WarpValue cur = load(p, mask, p.elem);
    BinaryOp op = assignBinaryOp(a.op);
    bool shift = op == BinaryOp::Shl || op == BinaryOp::Shr;
    v = binaryArith(*this, op, cur, shift ? std::move(v) : adapt(std::move(v), cur.kind, mask), mask, a.range);
  }
  store(p, v, mask);
}

void WarpExecutor::execOp(const OpStmt &op, LaneMask mask) {
  auto unsupported = [&] { fail(DiagKind::InterpUnsupported, op.nameRange, {"the operation '" + op.name + "'"}); };
  if (!op.op) unsupported();
  // A named barrier operand: `epi` or `epi[i]` (one barrier of an array, evaluated per warp).
  auto namedBarrier = [&](const Expr &e, int &id, int &warps, std::string &shown) -> bool {
    const Expr *root = &e;
    const IndexExpr *ix = dynCast<IndexExpr>(root);
    if (ix) root = ix->base.get();
    auto *name = dynCast<NameExpr>(root);
    if (!name || !name->decl || name->decl->declKind != DeclKind::Barrier) return false;
    const NamedBarrierInfo *nb = launch.info->namedBarrierOf(static_cast<const BarrierStmt *>(name->decl));
    if (!nb) CAKE_INTERNAL_ERROR("interpreter: a named barrier without NamedBarrierInfo");
    int64_t index = ix ? constInt(*ix->items[0].start, mask) : 0;
    if (index < 0 || index >= nb->count)
      fail(DiagKind::InterpOutOfBounds, e.range,
           {"barrier", name->name, blockText() + ", warp " + std::to_string(warp), std::to_string(index), "0", std::to_string(nb->count)});
    id = int(nb->id + index);
    shown = ix ? name->name + "[" + std::to_string(index) + "]" : name->name;
    warps = int(nb->threads / kLanes);
    return true;
  };
  switch (op.op->id) {
  case OpId::Syncthreads:
    if (mask != alive) requireFullWarp("syncthreads", op.range, mask);
    block.scheduler->sync(block.firstWarp + warp, 0, 0, &op, "syncthreads");
    return;
  case OpId::ClusterSync:
    if (mask != alive) requireFullWarp("cluster.sync", op.range, mask);
    block.scheduler->sync(block.firstWarp + warp, WarpScheduler::kClusterBarrier, 0, &op, "cluster.sync");
    return;
  case OpId::Syncwarp: return;   // the lanes of a warp run in lock-step: their accesses are already ordered
  case OpId::Sync: case OpId::Arrive: {
    int id = 0, warps = 0;
    std::string shown;
    if (op.dsts.empty() || !namedBarrier(*op.dsts[0], id, warps, shown)) {   // an mbarrier
      execAsyncOp(op, mask);
      return;
    }
    if (op.op->id == OpId::Sync) block.scheduler->sync(block.firstWarp + warp, id, warps, &op, "sync " + shown + ", barrier " + std::to_string(id));
    else block.scheduler->arrive(block.firstWarp + warp, id, warps);
    return;
  }
  case OpId::RedAdd: case OpId::RedMin: case OpId::RedMax: case OpId::RedAnd: case OpId::RedOr: case OpId::RedXor: {
    if (op.arrow != OpArrow::None) {   // red.add T[r0, c0] <- FRAG
      execFragmentStore(op, mask, true);
      return;
    }
    if (op.dsts.size() != 2) unsupported();
    Place p = place(*op.dsts[0], mask, "reduction");
    WarpValue v = evalAs(*op.dsts[1], mask, p.elem);
    atomicAccess = true;
    for (int l : lanesOf(mask)) {
      LaneMask one = LaneMask(1) << l;
      Place single = p;
      WarpValue now = load(single, one, p.elem);
      BinaryOp bop = op.op->id == OpId::RedAdd ? BinaryOp::Add : op.op->id == OpId::RedAnd ? BinaryOp::BitAnd
                     : op.op->id == OpId::RedOr ? BinaryOp::BitOr : op.op->id == OpId::RedXor ? BinaryOp::BitXor : BinaryOp::Add;
      WarpValue next;
      if (op.op->id == OpId::RedMin || op.op->id == OpId::RedMax) {
        next = now;
        bool mx = op.op->id == OpId::RedMax;
        if (p.elem.isFloat()) next.at(l).f = mx ? std::max(now.at(l).f, v.at(l).f) : std::min(now.at(l).f, v.at(l).f);
        else next.at(l).i = mx ? std::max(now.at(l).i, v.at(l).i) : std::min(now.at(l).i, v.at(l).i);
      } else {
        next = binaryArith(*this, bop, now, v, one, op.range);
      }
      store(single, next, one);
    }
    atomicAccess = false;
    return;
  }
  case OpId::MmaSync: execMmaSync(op, mask); return;
  case OpId::Wgmma: {   // computed when issued; its registers stay pending until a wgmma.wait retires it
    wgmmaIssue(op, mask);
    inWgmma = true;
    execWgmma(op, mask);
    inWgmma = false;
    return;
  }
  case OpId::WgmmaFence: case OpId::WgmmaCommit: case OpId::WgmmaWait: wgmmaGroupOp(op, mask); return;
  case OpId::Ldmatrix: case OpId::LdmatrixTrans: execMatrixMove(op, mask, false, op.op->id == OpId::LdmatrixTrans); return;
  case OpId::Stmatrix: case OpId::StmatrixTrans: execMatrixMove(op, mask, true, op.op->id == OpId::StmatrixTrans); return;
  case OpId::Store: execFragmentStore(op, mask, false); return;
  case OpId::RowArgmin: case OpId::RowArgmax: case OpId::ColArgmin: case OpId::ColArgmax: execArgReduce(op, mask); return;
  default:
    if (!execAsyncOp(op, mask) && !execTcgen05(op, mask)) unsupported();
  }
}

} // namespace cake::interp
