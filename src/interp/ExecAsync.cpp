// Asynchronous data movement and its synchronisation: mbarriers, TMA loads/stores, cp.async, their groups
// and the fences (docs/language.md 13.2, 13.4, 14.2 - 14.4; the model: docs/interpreter.md).
//
// Every operation runs per thread: each active lane that executes `arrive` arrives once, each lane that
// executes a `tma.load` issues one copy (so a copy issued outside `elect` is issued 32 times, as on the
// GPU).  A copy is an AsyncOp owned by the block; nothing moves when it is issued.  It completes later:
//   - at any hand-off between warps (WarpScheduler::progress; seed 0 completes everything pending, other
//     seeds a seeded random subset), or when no warp is runnable (one at a time, until one is);
//   - at a wait that covers it (`cp.async.wait N`, `tma.store.wait N` complete the thread's groups older
//     than the N most recent, in issue order);
//   - at the end of the block.
// Completing a copy moves its bytes then (a TMA store reads the shared tile at completion, so a tile
// overwritten before `tma.store.wait` shows in the output) and a TMA load completes its box bytes on its
// mbarrier.  `wait MBAR parity(p)` is a blocking point: the warp waits in the scheduler until every active
// lane's barrier left the phase of parity p.  Out-of-range TMA box elements read as zero and are not
// written by stores; cp.async with valid(false) writes zeros without reading.
#include "interp/WarpExecutor.h"

#include "frontend/Ops.h"

#include <cstring>

namespace cake::interp {

// ---------------------------------------------------------------- the block's pending operations

size_t AsyncQueue::complete(size_t i) {
  size_t before = 0;
  auto tcgen05 = [](AsyncOp::Kind k) { return k == AsyncOp::Tcgen05Mma || k == AsyncOp::Tcgen05Commit; };
  if (tcgen05(pending[i].kind))
    for (size_t j = 0; j < i;) {
      if (tcgen05(pending[j].kind) && pending[j].thread == pending[i].thread) {
        complete(j);   // the earliest of the thread's: nothing before it to complete
        ++before;
        --i;
      } else {
        ++j;
      }
    }
  AsyncOp op = std::move(pending[i]);
  pending.erase(pending.begin() + std::ptrdiff_t(i));
  if (op.perform) op.perform(op);
  if (op.signal) {
    if (races) joinInto(op.signal->phaseClock, op.clock);
    op.signal->tx -= op.bytes;
    op.signal->pending -= op.arrivals;
    op.signal->completeIfDone();
  } else if (races && !tcgen05(op.kind)) {
    done.push_back({op.kind, op.thread, op.group, std::move(op.clock)});
  }
  return before;
}

void AsyncQueue::touch(const AsyncOp &op, SharedArray &a, int64_t physicalByte, bool write) {
  if (!races || races->finding) return;
  if (a.shadow.empty()) a.shadow.resize(a.bytes.size() / scalarBytes(a.elem));
  size_t index = size_t(physicalByte) / scalarBytes(a.elem);
  if (a.decl->declKind == DeclKind::TensorMemory && op.access.async) {   // tensor memory has no proxies
    RaceAccess generic = op.access;
    generic.async = false;
    races->access(a.shadow, index, generic, op.clock, write, false, a.decl->name, a.dims, -1, seed);
    return;
  }
  races->access(a.shadow, index, op.access, op.clock, write, false, a.decl->name, a.dims, -1, seed);
}

bool AsyncQueue::progress(bool force) {
  if (pending.empty()) return false;
  if (force) {
    size_t i = scheduler && scheduler->seed() != 0
                   ? std::uniform_int_distribution<size_t>(0, pending.size() - 1)(scheduler->rng()) : 0;
    complete(i);
    return true;
  }
  if (!scheduler || scheduler->seed() == 0) {
    drain();
    return true;
  }
  bool any = false;
  for (size_t i = 0; i < pending.size();) {
    if (scheduler->rng()() & 1) {
      i -= complete(i);
      any = true;
    } else {
      ++i;
    }
  }
  return any;
}

void AsyncQueue::drain() {
  while (!pending.empty()) complete(0);
}

// ---------------------------------------------------------------- shared tile views

int64_t SharedTile::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t SharedTile::linear(int64_t flat) const {
  int64_t off = base;
  for (size_t i = dims.size(); i-- > 0;) {
    off += (flat % dims[i]) * strides[i];
    flat /= dims[i];
  }
  return off;
}

// A tile view of a shared array: each index list consumes the next dims of the remaining ones (a point
// drops its dim, a slice `i +: n` keeps n of it, `:` keeps it whole); `.T` swaps the last two dims.
SharedTile WarpExecutor::sharedTile(const Expr &e, LaneMask mask) {
  if (auto *m = dynCast<MemberExpr>(&e)) {
    if (m->member != "T") fail(DiagKind::InterpUnsupported, e.range, {"the member '." + m->member + "' as a tile"});
    SharedTile t = sharedTile(*m->base, mask);
    if (t.dims.size() < 2) CAKE_INTERNAL_ERROR("interpreter: .T of a tile of rank < 2");
    std::swap(t.dims[t.dims.size() - 1], t.dims[t.dims.size() - 2]);
    std::swap(t.strides[t.strides.size() - 1], t.strides[t.strides.size() - 2]);
    return t;
  }
  if (auto *n = dynCast<NameExpr>(&e)) {
    if (!n->decl || (n->decl->declKind != DeclKind::Shared && n->decl->declKind != DeclKind::TensorMemory))   // tmem: ExecTcgen05.cpp
      fail(DiagKind::InterpUnsupported, e.range, {"this expression as a shared tile"});
    auto it = block.shared.find(static_cast<const SharedStmt *>(n->decl));
    if (it == block.shared.end()) CAKE_INTERNAL_ERROR("interpreter: shared array '" + n->name + "' not allocated");
    SharedTile t;
    t.array = &it->second;
    t.dims = it->second.dims;
    t.strides.assign(t.dims.size(), 1);
    for (size_t i = t.dims.size(); i-- > 1;) t.strides[i - 1] = t.strides[i] * t.dims[i];
    return t;
  }
  auto *ix = dynCast<IndexExpr>(&e);
  if (!ix) fail(DiagKind::InterpUnsupported, e.range, {"this expression as a shared tile"});
  SharedTile t = sharedTile(*ix->base, mask);
  // The dims this list addresses: those of the outermost remaining bracket group of the base's type.
  size_t first = t.dims.size() - (ix->base->type && ix->base->type->isTensor() ? ix->base->type->allDims().size() : t.dims.size());
  SharedTile out = t;
  out.dims.resize(first);
  out.strides.resize(first);
  for (size_t d = 0; d < ix->items.size(); ++d) {
    const IndexItem &item = ix->items[d];
    size_t dim = first + d;
    if (dim >= t.dims.size()) CAKE_INTERNAL_ERROR("interpreter: more indices than tile dims");
    int64_t start = 0, len = t.dims[dim];
    if (item.kind != IndexItem::Full) start = constInt(*item.start, mask);
    if (item.kind == IndexItem::Slice) len = constInt(*item.length, mask);
    if (start < 0 || start + (item.kind == IndexItem::Point ? 1 : len) > t.dims[dim])
      fail(DiagKind::InterpOutOfBounds, item.range,
           {"tile", "shared tile", blockText() + ", warp " + std::to_string(warp), std::to_string(start), std::to_string(d),
            std::to_string(t.dims[dim])});
    out.base += start * t.strides[dim];
    if (item.kind != IndexItem::Point) {
      out.dims.push_back(len);
      out.strides.push_back(t.strides[dim]);
    }
  }
  for (size_t dim = first + ix->items.size(); dim < t.dims.size(); ++dim) {
    out.dims.push_back(t.dims[dim]);
    out.strides.push_back(t.strides[dim]);
  }
  return out;
}

namespace {

// Every element of a box (row-major over the box dims): its global element offset, or -1 outside the
// tensor's dims.
std::vector<int64_t> boxOffsets(const GlobalTensor &g, const std::vector<int64_t> &coords, const std::vector<int64_t> &box) {
  int64_t n = 1;
  for (int64_t b : box) n *= b;
  std::vector<int64_t> out(size_t(std::max<int64_t>(n, 0)));
  std::vector<int64_t> idx(box.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < box.size(); ++d) {
      int64_t c = coords[d] + idx[d];
      if (c < 0 || c >= g.dims[d]) inside = false;
      off += c * g.strides[d];
    }
    out[size_t(k)] = inside ? off : -1;
    for (size_t d = box.size(); d-- > 0;) {
      if (++idx[d] < box[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

} // namespace

std::array<MBarrierRef, kLanes> WarpExecutor::mbarrierOf(const Expr &e, LaneMask m, bool mustBeInitialised, const WarpValue *ranks) {
  std::array<MBarrierRef, kLanes> refs{};
  const Expr *root = &e;
  const IndexExpr *ix = dynCast<IndexExpr>(root);
  if (ix) root = ix->base.get();
  auto *name = dynCast<NameExpr>(root);
  if (!name || !name->decl || name->decl->declKind != DeclKind::MBarrier)
    fail(DiagKind::InterpUnsupported, e.range, {"this mbarrier operand"});
  auto *decl = static_cast<const MBarrierStmt *>(name->decl);
  WarpValue index = ix ? eval(*ix->items[0].start, m) : WarpValue::uniformInt(ValueKind::of(ScalarKind::I32), 0);
  for (int l : lanesOf(m)) {
    BlockState *owner = &block;
    if (ranks) {
      int64_t r = ranks->at(l).i;
      if (r < 0 || r >= int64_t(block.cluster->size()))
        fail(DiagKind::InterpOutOfBounds, e.range, {"cta", name->name, whereText(l), std::to_string(r), "0", std::to_string(block.cluster->size())});
      owner = (*block.cluster)[size_t(r)];
    }
    auto &bars = owner->mbarriers.at(decl);
    int64_t i = index.at(l).i;
    refs[size_t(l)].decl = decl;
    refs[size_t(l)].index = size_t(std::max<int64_t>(i, 0));
    if (i < 0 || i >= int64_t(bars.size()))
      fail(DiagKind::InterpOutOfBounds, e.range, {"mbarrier", name->name, whereText(l), std::to_string(i), "0", std::to_string(bars.size())});
    refs[size_t(l)].state = &bars[size_t(i)];
    refs[size_t(l)].shown = ix ? name->name + "[" + std::to_string(i) + "]" : name->name;
    if (mustBeInitialised && !bars[size_t(i)].initialized)
      fail(DiagKind::InterpMBarrierUninitialized, e.range, {refs[size_t(l)].shown, whereText(l)},
           "initialise it first: mbarrier.init by one thread, fence.mbarrier_init, then syncthreads");
  }
  return refs;
}

bool WarpExecutor::execAsyncOp(const OpStmt &op, LaneMask mask) {
  auto clause = [&](const char *name) -> const Clause * {
    for (const Clause &c : op.clauses) if (c.name == name) return &c;
    return nullptr;
  };
  auto thread = [&](int l) { return warp * kLanes + l; };                       // in the block
  auto clusterThread = [&](int l) { return (block.firstWarp + warp) * kLanes + l; };   // in the cluster
  auto arriveOn = [&](const MBarrierRef &r, int l, SourceRange where) {
    if (r.state->pending <= 0)
      fail(DiagKind::InterpMBarrierOverflow, where, {r.shown, whereText(l), std::to_string(r.state->phase), std::to_string(r.state->arrivals)},
           "count the threads that arrive: arrive under elect arrives once, otherwise once per thread");
    --r.state->pending;
    r.state->completeIfDone();
  };
  auto groupWait = [&](AsyncOp::Kind kind, std::vector<int64_t> &commits) {
    int64_t n = op.dsts.empty() ? 0 : constInt(*op.dsts[0], mask);
    for (int l : lanesOf(mask)) {
      int64_t limit = commits[size_t(thread(l))] - n;   // groups < limit must have completed
      for (size_t i = 0; i < block.async->pending.size();) {
        const AsyncOp &a = block.async->pending[i];
        if (a.kind == kind && a.thread == clusterThread(l) && a.group < limit) block.async->complete(i);
        else ++i;
      }
      auto &done = block.async->done;
      for (size_t i = 0; i < done.size();) {
        if (done[i].kind == kind && done[i].thread == clusterThread(l) && done[i].group < limit) {
          if (block.races) joinInto(block.races->clock(agent()), done[i].clock);
          done.erase(done.begin() + std::ptrdiff_t(i));
        } else {
          ++i;
        }
      }
    }
  };
  // Race detection: a copy issued now is an agent of its own, after everything its issuer did so far.
  auto asAgent = [&](AsyncOp &a, const char *what) {
    if (!block.races) return;
    a.access.agent = block.races->issueAsync(agent(), a.clock);
    a.access.clock = a.clock[size_t(a.access.agent)];
    a.access.at = op.range;
    a.access.issuer = agent();
    a.access.what = what;
    a.access.async = a.kind != AsyncOp::CpAsync;
  };

  switch (op.op->id) {
  case OpId::MbarrierInit: {
    auto *name = op.dsts.empty() ? nullptr : dynCast<NameExpr>(op.dsts[0].get());
    if (!name || !name->decl) fail(DiagKind::InterpUnsupported, op.range, {"this mbarrier.init operand"});
    const MBarrierInfo *info = launch.info->mbarrierOf(static_cast<const MBarrierStmt *>(name->decl));
    if (!info) CAKE_INTERNAL_ERROR("interpreter: an mbarrier without MBarrierInfo");
    for (MBarrierState &b : block.mbarriers.at(info->decl)) {
      b = MBarrierState{};
      b.initialized = true;
      b.arrivals = b.pending = info->arrivals;
    }
    return true;
  }
  case OpId::MbarrierExpectTx: {
    auto refs = mbarrierOf(*op.dsts[0], mask, true);
    WarpValue bytes = eval(*op.dsts[1], mask);
    for (int l : lanesOf(mask)) refs[size_t(l)].state->tx += bytes.at(l).i;
    return true;
  }
  case OpId::Arrive: {
    const Clause *cta = clause("cta");
    WarpValue ranks = cta ? eval(*cta->args[0], mask) : WarpValue{};
    auto refs = mbarrierOf(*op.dsts[0], mask, true, cta ? &ranks : nullptr);
    const Clause *tx = clause("expect_tx");
    WarpValue bytes = tx ? eval(*tx->args[0], mask) : WarpValue::uniformInt(ValueKind::of(ScalarKind::I32), 0);
    for (int l : lanesOf(mask)) {
      refs[size_t(l)].state->tx += bytes.at(l).i;
      if (block.races) joinInto(refs[size_t(l)].state->phaseClock, block.races->clock(agent()));
      arriveOn(refs[size_t(l)], l, op.range);
    }
    if (block.races) block.races->tick(agent());
    return true;
  }
  case OpId::Wait: {
    auto refs = mbarrierOf(*op.dsts[0], mask, true);
    const Clause *par = clause("parity");
    if (!par) CAKE_INTERNAL_ERROR("interpreter: wait without parity (sema E0320)");
    WarpValue p = eval(*par->args[0], mask);
    std::vector<std::pair<MBarrierState *, int64_t>> conds;
    for (int l : lanesOf(mask)) conds.emplace_back(refs[size_t(l)].state, p.at(l).i & 1);
    auto ready = [conds] {
      for (auto &[b, parity] : conds)
        if ((b->phase & 1) == parity) return false;
      return true;
    };
    if (!ready()) {
      const MBarrierRef &r = refs[size_t(__builtin_ctz(mask))];
      block.scheduler->waitUntil(block.firstWarp + warp, ready, &op, "wait " + r.shown + " parity(" + std::to_string(conds.front().second) + ")");
    }
    if (block.races)
      for (auto &[b, parity] : conds) joinInto(block.races->clock(agent()), b->lastClock);
    return true;
  }
  case OpId::TmaLoad: case OpId::TmaStore: {
    bool load = op.op->id == OpId::TmaLoad;
    const Expr &tileExpr = load ? *op.dsts[0] : *op.srcs[0];
    auto *gix = dynCast<IndexExpr>(load ? op.srcs[0].get() : op.dsts[0].get());
    auto *gname = gix ? dynCast<NameExpr>(gix->base.get()) : nullptr;
    if (!gname || !gname->decl || gname->decl->declKind != DeclKind::Param)
      fail(DiagKind::InterpUnsupported, op.range, {"this TMA operand"});
    auto *param = static_cast<const Param *>(gname->decl);
    GlobalTensor *g = &launch.globals.at(param);
    const TensorParamInfo *tp = launch.info->tensorParamOf(param);
    if (!tp || !tp->tma) CAKE_INTERNAL_ERROR("interpreter: TMA on a tensor without a tensor map");
    const Clause *multicast = clause("multicast");
    WarpValue castMask = multicast ? eval(*multicast->args[0], mask) : WarpValue{};
    SharedTile tile = sharedTile(tileExpr, mask);
    std::vector<int64_t> box = tp->box;
    int64_t boxElements = 1;
    for (int64_t b : box) boxElements *= b;
    if (boxElements != tile.elements()) CAKE_INTERNAL_ERROR("interpreter: a TMA tile that differs from the box");
    std::vector<WarpValue> coords;
    for (const IndexItem &item : gix->items) coords.push_back(eval(*item.start, mask));
    std::array<MBarrierRef, kLanes> signal{};
    if (load) {
      const Clause *sig = clause("signal");
      if (!sig) CAKE_INTERNAL_ERROR("interpreter: tma.load without signal (sema E0320)");
      signal = mbarrierOf(*sig->args[0], mask, true);
    }
    std::vector<int64_t> tileOffsets(static_cast<size_t>(boxElements), 0);
    for (int64_t k = 0; k < boxElements; ++k) tileOffsets[size_t(k)] = tile.array->physical(tile.linear(k));
    size_t eb = scalarBytes(g->elem);
    for (int l : lanesOf(mask)) {
      std::vector<int64_t> c;
      for (const WarpValue &v : coords) c.push_back(v.at(l).i);
      // The destination blocks: this one, or every block of the cluster whose bit the multicast mask sets
      // (the tile at the same place in each, signalling each block's copy of the barrier).
      std::vector<BlockState *> dests{&block};
      if (multicast) {
        dests.clear();
        uint64_t bits = uint64_t(castMask.at(l).i) & 0xffff;
        for (size_t r = 0; r < block.cluster->size(); ++r)
          if (bits >> r & 1) dests.push_back((*block.cluster)[r]);
      }
      for (BlockState *dest : dests) {
      AsyncOp a;
      a.kind = load ? AsyncOp::TmaLoad : AsyncOp::TmaStore;
      a.thread = clusterThread(l);
      a.group = load ? 0 : block.bulkCommits[size_t(thread(l))];
      if (load) {
        MBarrierState &bar = dest->mbarriers.at(signal[size_t(l)].decl)[signal[size_t(l)].index];
        if (!bar.initialized)
          fail(DiagKind::InterpMBarrierUninitialized, op.range, {signal[size_t(l)].shown + " of cluster block " + std::to_string(dest->rank), whereText(l)});
        a.signal = &bar;
      }
      a.bytes = boxElements * int64_t(eb);
      SharedArray *sh = &dest->shared.at(tile.array->decl);
      asAgent(a, load ? "tma.load" : "tma.store");
      AsyncQueue *queue = block.async;
      a.perform = [g, sh, c, box, tileOffsets, eb, load, queue](const AsyncOp &self) {
        std::vector<int64_t> offs = boxOffsets(*g, c, box);
        for (size_t k = 0; k < offs.size(); ++k) {
          queue->touch(self, *sh, tileOffsets[k], load);
          uint8_t *s = sh->bytes.data() + tileOffsets[k];
          if (load) {
            if (offs[k] < 0) std::memset(s, 0, eb);
            else std::memcpy(s, g->bytes.data() + size_t(offs[k]) * eb, eb);
          } else if (offs[k] >= 0) {
            std::memcpy(g->bytes.data() + size_t(offs[k]) * eb, s, eb);
          }
        }
      };
      block.async->pending.push_back(std::move(a));
      }
    }
    return true;
  }
  case OpId::TmaStoreCommit:
    for (int l : lanesOf(mask)) ++block.bulkCommits[size_t(thread(l))];
    return true;
  case OpId::TmaStoreWait: groupWait(AsyncOp::TmaStore, block.bulkCommits); return true;
  case OpId::CpAsync: {
    const Clause *valid = clause("valid");
    LaneMask copying = mask;
    if (valid) {
      WarpValue c = eval(*valid->args[0], mask);
      copying = 0;
      for (int l : lanesOf(mask))
        if (c.at(l).i) copying |= LaneMask(1) << l;
    }
    Place dst = place(*op.dsts[0], mask, "cp.async destination");
    Place src = copying ? place(*op.srcs[0], copying, "cp.async source") : Place{};
    if (dst.kind != Place::Shared || (copying && src.kind != Place::Global))
      fail(DiagKind::InterpUnsupported, op.range, {"this cp.async operand"});
    SharedArray *sh = dst.shared;
    GlobalTensor *g = src.global;
    size_t eb = scalarBytes(sh->elem);
    unsigned n = dst.length;
    for (int l : lanesOf(mask)) {
      AsyncOp a;
      a.kind = AsyncOp::CpAsync;
      a.thread = clusterThread(l);
      a.group = block.cpCommits[size_t(thread(l))];
      int64_t d = dst.offset[size_t(l)];
      bool copy = copying >> l & 1;
      int64_t s = copy ? src.offset[size_t(l)] : 0;
      asAgent(a, "cp.async");
      AsyncQueue *queue = block.async;
      a.perform = [sh, g, d, s, n, eb, copy, queue](const AsyncOp &self) {
        for (unsigned e = 0; e < n; ++e) {
          queue->touch(self, *sh, sh->physical(d + e), true);
          uint8_t *to = sh->bytes.data() + sh->physical(d + e);
          if (copy) std::memcpy(to, g->bytes.data() + size_t(s + e) * eb, eb);
          else std::memset(to, 0, eb);
        }
      };
      block.async->pending.push_back(std::move(a));
    }
    return true;
  }
  case OpId::CpAsyncCommit:
    for (int l : lanesOf(mask)) ++block.cpCommits[size_t(thread(l))];
    return true;
  case OpId::CpAsyncWait: groupWait(AsyncOp::CpAsync, block.cpCommits); return true;
  case OpId::FenceProxyAsync:
    if (block.races) block.races->fenceProxyAsync(agent());
    return true;
  case OpId::FenceMbarrierInit: return true;
  default: return false;
  }
}

} // namespace cake::interp
