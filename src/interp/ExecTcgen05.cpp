// Blackwell tensor memory and the tcgen05 operations (docs/language.md 13.6; the model: docs/interpreter.md).
//
// A `tmem` array is held like a shared array of the block (SharedArray, logical row-major [..][128, N], no
// swizzle): it starts filled with 0xff bytes and the race detector records its elements, so a read of
// never-written tensor memory (E0914) and unordered accesses (E0912) are reported as for shared memory.
//   tcgen05.mma      one asynchronous operation per issuing thread (an AsyncOp of the block's queue, like a
//                    TMA copy): nothing is computed at issue; when it completes it reads its shared (or tmem)
//                    operands through the async proxy and writes D.  accumulate(P) is evaluated at issue: false
//                    makes the first k16 step overwrite D.  Each k16 step adds its 16 products (exact in
//                    double for bf16 / f16) to the f32 element and rounds once, as wgmma (ExecMma.cpp).
//   tcgen05.commit   an AsyncOp that gives its mbarrier one arrival when it completes.
//                    The tcgen05 operations of one thread complete in issue order (AsyncQueue::complete
//                    completes the thread's earlier ones first) and each is ordered after the earlier ones
//                    for race detection (AsyncQueue::tcgen05Issued), so an arrival from a commit releases
//                    every MMA before it, and nothing else does.
//   tcgen05.ld / st  synchronous, per warp: warp w of the warpgroup moves rows 32 (w % 4) .. + 32 (thread t of
//                    the warp: row 32 (w % 4) + t, element j = column j; Fragments.cpp fragCoord), so
//                    tcgen05.wait.ld / wait.st have nothing left to wait for.
//   alloc, dealloc, relinquish, fence.before / fence.after
//                    no effect on values or ordering here: the array exists for the whole block, and the
//                    ordering the fences give on the GPU is the commit -> mbarrier -> wait edge above.  Their
//                    rules (one whole warp allocates, the allocator frees before exit, the fences around
//                    thread synchronization) are the verifier's (docs/verifier.md).
#include "interp/WarpExecutor.h"

#include "frontend/Ops.h"

namespace cake::interp {

namespace {

double readElement(const SharedArray &a, int64_t logical) {
  return loadScalar(a.bytes.data() + a.physical(logical), a.elem).f;
}

} // namespace

bool WarpExecutor::execTcgen05(const OpStmt &op, LaneMask mask) {
  auto clusterThread = [&](int l) { return (block.firstWarp + warp) * kLanes + l; };
  // An asynchronous tcgen05 operation of lane l: its own agent, ordered after the thread's earlier ones.
  auto issue = [&](AsyncOp &a, int l, const char *what) {
    a.thread = clusterThread(l);
    if (!block.races) return;
    a.access.agent = block.races->issueAsync(agent(), a.clock);
    a.access.clock = a.clock[size_t(a.access.agent)];
    a.access.at = op.range;
    a.access.issuer = agent();
    a.access.what = what;
    a.access.async = true;
    VectorClock &chain = block.async->tcgen05Issued[a.thread];
    joinInto(a.clock, chain);
    chain = a.clock;
  };

  switch (op.op->id) {
  case OpId::Tcgen05Alloc: case OpId::Tcgen05Dealloc:
    requireFullWarp(op.name.c_str(), op.range, mask);
    return true;
  case OpId::Tcgen05Relinquish: case OpId::Tcgen05FenceBefore: case OpId::Tcgen05FenceAfter:
  case OpId::Tcgen05WaitLd: case OpId::Tcgen05WaitSt:
    return true;
  case OpId::Tcgen05Mma: {
    auto *mul = dynCast<BinaryExpr>(op.srcs[0].get());
    if (!mul || mul->op != BinaryOp::Mul) CAKE_INTERNAL_ERROR("interpreter: tcgen05.mma without A * B (sema)");
    SharedTile td = sharedTile(*op.dsts[0], mask);
    SharedTile ta = sharedTile(*mul->lhs, mask);
    SharedTile tb = sharedTile(*mul->rhs, mask);   // B stored [N, K], read .T: [K, N]
    if (td.dims.size() != 2 || ta.dims.size() != 2 || tb.dims.size() != 2)
      CAKE_INTERNAL_ERROR("interpreter: a tcgen05.mma operand of rank != 2");
    const int64_t M = td.dims[0], N = td.dims[1], K = ta.dims[1];
    if (ta.dims[0] != M || tb.dims[0] != K || tb.dims[1] != N)
      CAKE_INTERNAL_ERROR("interpreter: tcgen05.mma operand shapes differ (sema E0382)");
    WarpValue first = WarpValue::uniformInt(ValueKind::of(ScalarKind::Pred), 1);
    for (const Clause &c : op.clauses)
      if (c.name == "accumulate") first = eval(*c.args[0], mask);
    for (int l : lanesOf(mask)) {
      AsyncOp a;
      a.kind = AsyncOp::Tcgen05Mma;
      issue(a, l, "tcgen05.mma");
      const bool accumulate = first.at(l).i != 0;
      AsyncQueue *queue = block.async;
      a.perform = [td, ta, tb, M, N, K, accumulate, queue](const AsyncOp &self) {
        std::vector<double> A(size_t(M * K)), B(size_t(K * N));
        for (int64_t r = 0; r < M; ++r)
          for (int64_t k = 0; k < K; ++k) {
            queue->touch(self, *ta.array, ta.array->physical(ta.at(r, k)), false);
            A[size_t(r * K + k)] = readElement(*ta.array, ta.at(r, k));
          }
        for (int64_t k = 0; k < K; ++k)
          for (int64_t n = 0; n < N; ++n) {
            queue->touch(self, *tb.array, tb.array->physical(tb.at(k, n)), false);
            B[size_t(k * N + n)] = readElement(*tb.array, tb.at(k, n));
          }
        SharedArray &d = *td.array;
        for (int64_t r = 0; r < M; ++r)
          for (int64_t n = 0; n < N; ++n) {
            const int64_t phys = d.physical(td.at(r, n));
            if (accumulate) queue->touch(self, d, phys, false);
            queue->touch(self, d, phys, true);
            double acc = accumulate ? loadScalar(d.bytes.data() + phys, d.elem).f : 0.0;
            for (int64_t k0 = 0; k0 < K; k0 += 16) {
              double dot = 0;
              for (int64_t k = k0; k < k0 + 16 && k < K; ++k) dot += A[size_t(r * K + k)] * B[size_t(k * N + n)];
              acc = roundToFloat(acc + dot, d.elem);
            }
            Scalar s;
            s.f = acc;
            storeScalar(d.bytes.data() + phys, d.elem, s);
          }
      };
      block.async->pending.push_back(std::move(a));
    }
    return true;
  }
  case OpId::Tcgen05Commit: {
    auto refs = mbarrierOf(*op.dsts[0], mask, true);
    for (int l : lanesOf(mask)) {
      AsyncOp a;
      a.kind = AsyncOp::Tcgen05Commit;
      issue(a, l, "tcgen05.commit");
      a.signal = refs[size_t(l)].state;
      a.arrivals = 1;
      block.async->pending.push_back(std::move(a));
    }
    if (block.races) block.races->tick(agent());
    return true;
  }
  case OpId::Tcgen05Ld: case OpId::Tcgen05St: {
    const bool isLoad = op.op->id == OpId::Tcgen05Ld;
    requireFullWarp(op.name.c_str(), op.range, mask);
    const Expr &fragExpr = isLoad ? *op.dsts[0] : *op.srcs[0];
    SharedTile tile = sharedTile(isLoad ? *op.srcs[0] : *op.dsts[0], mask);
    const Type *t = fragExpr.type;
    if (tile.dims.size() != 2 || !t || !t->isFragment()) CAKE_INTERNAL_ERROR("interpreter: tcgen05.ld/st operands (sema E0382)");
    SharedArray &arr = *tile.array;
    Place pf;
    WarpValue v;
    if (isLoad) {
      pf = place(fragExpr, mask, "tcgen05.ld destination");
      v = load(pf, mask, pf.elem);
    } else {
      v = eval(fragExpr, mask);
    }
    for (int l = 0; l < kLanes; ++l)
      for (unsigned e = 0; e < v.width; ++e) {
        FragCoord x = fragCoord(t, warp, l, e);
        if (x.row >= tile.dims[0] || x.col >= tile.dims[1]) CAKE_INTERNAL_ERROR("interpreter: a tmem_acc element outside its tile");
        const int64_t logical = tile.at(x.row, x.col);
        sharedAccess(arr, logical, !isLoad);
        uint8_t *at = arr.bytes.data() + arr.physical(logical);
        if (isLoad) v.at(l, e) = loadScalar(at, arr.elem);
        else storeScalar(at, arr.elem, v.at(l, e));
      }
    if (isLoad) store(pf, v, mask);
    return true;
  }
  default: return false;
  }
}

} // namespace cake::interp
