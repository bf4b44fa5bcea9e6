// WorkCounter, operation statements: what each CAKE operation (Ops.def) moves and computes.
//
//   tma.load     box bytes from L2 (one copy per issuing lane), written to shared in every CTA of its
//                multicast mask; the signalled barrier's stages make the TMA ring (bytes in flight)
//   tma.store    box bytes read from shared, written to global
//   cp.async     bytes per lane global -> shared; sectors from the lanes' addresses; groups and
//                cp.async.wait N give the pipeline depth N + 1 (bytes in flight = group bytes x depth)
//   ldmatrix     x1/x2/x4 8x8 b16 matrices (= 32-bit registers of the destination fragments) of 128 bytes;
//                lanes 8i..8i+7 give matrix i's row addresses, so bank conflicts come from those addresses
//   stmatrix     the same in the other direction
//   store        a fragment at its lane layout: elements per thread x lanes x element size; mma layouts write
//                8 rows of 4 lanes x 2 elements per instruction, so rows narrower than a 32-byte sector cost
//                a whole sector in L2
//   mma.sync     2*M*N*K FLOPs per warp instruction (f8 inputs: half the 16-bit time; tf32: twice it)
//   wgmma        2*64*N*K FLOPs per warpgroup, K/16 instructions (f8: K/32), a quarter per warp; operand
//                tiles read from shared by the async proxy
//   red.OP       an atomic update per active lane (Counter::countAtomic); the fragment form red.add T <- acc
//                is one red.f32 per element, every element at its own address (no contention in the warp)
//   barriers     syncthreads / sync / cluster.*: a barrier on the warp's critical path
//   wait         on a barrier that TMA loads signal: one async wait, divided by the ring's stages
#include "cost/WorkCounterImpl.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

namespace cake::cost::detail {

namespace {

const Decl *barrierDeclOf(const Expr *e) {
  while (e) {
    if (auto *ix = dynCast<IndexExpr>(e)) e = ix->base.get();
    else if (auto *n = dynCast<NameExpr>(e)) return n->decl;
    else return nullptr;
  }
  return nullptr;
}

const Clause *findClause(const OpStmt &op, std::string_view name) {
  for (const Clause &c : op.clauses)
    if (c.name == name) return &c;
  return nullptr;
}

// Tensor-core time unit: f8 inputs run at twice the 16-bit rate.
// The time of an MMA's FLOPs relative to bf16/f16 inputs at the machine's dense rate: f8 runs at twice it,
// tf32 at half of it on sm_80 and sm_90 (A100: 156 vs 312 TFLOP/s dense; H100 SXM: 495 vs 989).
double inputRateFactor(const Type *t) {
  if (!t) return 1.0;
  if (isF8Scalar(t->elementScalar())) return 0.5;
  return t->elementScalar() == ScalarKind::TF32 ? 2.0 : 1.0;
}

int64_t fragmentRegisters(const std::vector<Ptr<Expr>> &frags) {
  int64_t regs = 0;
  for (const auto &f : frags)
    if (f->type && f->type->isFragment()) regs += f->type->fragRegistersPerThread();
  return regs;
}

} // namespace

void Counter::countStore(const AssignStmt &s, const ResolvedAccess &target, int64_t bytesPerLane) {
  issue(1);
  if (target.space == AddressSpace::Global)
    globalAccess(&s, target, bytesPerLane, true, Count::SimtStoreBytes, false);
  else
    sharedAccess(target, bytesPerLane, true);
}

// One warp instruction; the bytes go to L2 (global: counted as stores, the read-modify-write happens there) or
// to shared memory.  Contention: the lanes of one instruction that hit one address are applied one after
// another, so an instruction whose active lanes hit at most k lanes per address costs k - 1 extra issue slots
// on the warp's path (a warp-uniform address: 31) and k - 1 extra shared wavefronts.  Unknown addresses are
// taken as distinct.
void Counter::countAtomic(const Expr &target, const void *node) {
  ResolvedAccess ra = resolve(target);
  if (!ra.memory || !active_) return;
  int64_t bytes = target.type ? target.type->sizeInBytes().value_or(ra.elemBytes) : ra.elemBytes;
  int64_t k = 1;
  if (ra.byteOffset.isUniform()) {
    k = lanes();
  } else if (ra.byteOffset.known()) {
    std::map<int64_t, int64_t> perAddress;
    for (unsigned l = 0; l < 32; ++l)
      if (active_ & (1u << l)) k = std::max(k, ++perAddress[ra.byteOffset.at(l)]);
  }
  issue(static_cast<double>(k));
  add(Count::AtomicLaneOps, lanes());
  add(Count::AtomicSerialUpdates, static_cast<double>(k - 1));
  if (ra.space == AddressSpace::Global) {
    globalAccess(node, ra, bytes, true, Count::SimtStoreBytes, false);
  } else {
    sharedAccess(ra, bytes, true);
    add(Count::SharedWavefronts, static_cast<double>(k - 1));
  }
}

void Counter::walkOp(const OpStmt &op) {
  if (!op.op) return;
  double active = lanes();
  switch (op.op->id) {
  case OpId::RedAdd: case OpId::RedMin: case OpId::RedMax: case OpId::RedAnd: case OpId::RedOr: case OpId::RedXor: {
    if (op.arrow == OpArrow::None) {
      if (op.dsts.size() != 2) return;
      eval(*op.dsts[1]);
      countAtomic(*op.dsts[0], &op);
      return;
    }
    if (op.dsts.empty() || op.srcs.empty()) return;
    ResolvedAccess dst = resolve(*op.dsts[0]);
    const Type *frag = op.srcs[0]->type;
    if (!frag || !frag->isFragment() || !dst.memory) return;
    int64_t perThread = frag->fragElementsPerThread();
    int64_t instructions = perThread;   // one red.add.f32 per element (LowerAtomics.cpp)
    issue(static_cast<double>(std::max<int64_t>(1, instructions)));
    double bytes = static_cast<double>(perThread * 4) * active;
    add(Count::AtomicLaneOps, static_cast<double>(perThread) * active);
    if (dst.space == AddressSpace::Global) {
      add(Count::SimtStoreBytes, bytes);
      add(Count::L2StoreBytes, bytes);   // 4 lanes x 2 f32 = one whole 32-byte sector per row and pair
      if (active_) {
        size_t site = siteFor(&op, dst.base, true);
        sites_[site].blockDeps |= dst.deps & kDepBlockAny;
        if (acc_.siteBytes.size() <= site) acc_.siteBytes.resize(site + 1, 0);
        acc_.siteBytes[site] += bytes * localWeight_;
      }
    } else {
      add(Count::SharedStoreBytes, bytes);
      add(Count::SharedWavefronts, static_cast<double>(perThread));
    }
    return;
  }
  case OpId::TmaLoad: {
    if (op.dsts.empty() || op.srcs.empty()) return;
    issue(2);
    ResolvedAccess dst = resolve(*op.dsts[0]);
    ResolvedAccess src = resolve(*op.srcs[0]);
    double box = static_cast<double>(dst.tileElements * dst.elemBytes);
    double ctas = 1;
    if (const Clause *mc = findClause(op, "multicast"); mc && !mc->args.empty()) {
      LaneValue mask = eval(*mc->args[0]);
      if (mask.isUniform()) ctas = std::max(1, std::popcount(static_cast<uint64_t>(mask.scalar)));
    }
    if (src.memory) {
      ResolvedAccess whole = src;
      whole.byteOffset = LaneValue::unknown(src.deps);
      if (active_) {
        add(Count::TmaLoadBytes, box * active);
        add(Count::L2LoadBytes, box * active);
        size_t site = siteFor(&op, src.base, false);
        sites_[site].blockDeps |= src.deps & kDepBlockAny;
        if (acc_.siteBytes.size() <= site) acc_.siteBytes.resize(site + 1, 0);
        acc_.siteBytes[site] += box * active * localWeight_;
        if (src.deps & blockLoopBits_) probeWaveFootprint(site, *op.srcs[0]);
      }
    }
    add(Count::SharedStoreBytes, box * active * ctas);
    add(Count::SharedWavefronts, box * active * ctas / 128);
    add(Count::MulticastSavedBytes, box * active * (ctas - 1));
    const Decl *barrier = nullptr;
    if (const Clause *sig = findClause(op, "signal"); sig && !sig->args.empty()) barrier = barrierDeclOf(sig->args[0].get());
    tmaSites_[&op] = {barrier, box};
    return;
  }
  case OpId::TmaStore: {
    if (op.dsts.empty() || op.srcs.empty()) return;
    issue(2);
    ResolvedAccess dst = resolve(*op.dsts[0]);
    ResolvedAccess src = resolve(*op.srcs[0]);
    double box = static_cast<double>(src.tileElements * src.elemBytes);
    add(Count::TmaStoreBytes, box * active);
    add(Count::L2StoreBytes, box * active);
    add(Count::SharedLoadBytes, box * active);
    add(Count::SharedWavefronts, box * active / 128);
    if (dst.memory && active_) {
      size_t site = siteFor(&op, dst.base, true);
      sites_[site].blockDeps |= dst.deps & kDepBlockAny;
      if (acc_.siteBytes.size() <= site) acc_.siteBytes.resize(site + 1, 0);
      acc_.siteBytes[site] += box * active * localWeight_;
    }
    return;
  }
  case OpId::CpAsync: {
    if (op.dsts.empty() || op.srcs.empty()) return;
    issue(1);
    ResolvedAccess dst = resolve(*op.dsts[0]);
    ResolvedAccess src = resolve(*op.srcs[0]);
    int64_t bytes = op.srcs[0]->type ? op.srcs[0]->type->sizeInBytes().value_or(16) : 16;
    if (src.memory) {
      globalAccess(&op, src, bytes, false, Count::CpAsyncBytes, false);
      if ((src.deps & blockLoopBits_) && active_) probeWaveFootprint(siteFor(&op, src.base, false), *op.srcs[0]);
    }
    add(Count::SharedStoreBytes, static_cast<double>(bytes) * active);
    add(Count::SharedWavefronts, static_cast<double>(idealWavefronts(bytes, active_)));
    cpGroupBytes_ += static_cast<double>(bytes) * active;
    (void)dst;
    return;
  }
  case OpId::CpAsyncCommit:
    issue(1);
    cpMaxGroupBytes_ = std::max(cpMaxGroupBytes_, cpGroupBytes_);
    cpGroupBytes_ = 0;
    ++cpCommits_;
    return;
  case OpId::CpAsyncWait: {
    issue(1);
    int64_t pending = 0;
    if (!op.dsts.empty()) {
      LaneValue n = eval(*op.dsts[0]);
      if (n.isUniform()) pending = std::max<int64_t>(0, n.scalar);
    }
    cpDepth_ = std::max<int64_t>(cpDepth_, pending + 1);
    pipelineDepth_ = std::max<int64_t>(pipelineDepth_, pending + 1);
    acc_.chainAsync += localWeight_ / static_cast<double>(pending + 1);
    return;
  }
  case OpId::Ldmatrix: case OpId::LdmatrixTrans: case OpId::Stmatrix: case OpId::StmatrixTrans: {
    bool load = op.op->id == OpId::Ldmatrix || op.op->id == OpId::LdmatrixTrans;
    const auto &frags = load ? op.dsts : op.srcs;
    const auto &tiles = load ? op.srcs : op.dsts;
    if (tiles.empty()) return;
    issue(1);
    int64_t matrices = std::clamp<int64_t>(fragmentRegisters(frags), 1, 4);
    ResolvedAccess ra = resolve(*tiles[0]);
    uint32_t addressLanes = matrices >= 4 ? 0xffffffffu : ((1u << (8 * matrices)) - 1);
    double bytes = static_cast<double>(matrices * 128);
    std::optional<LaneValue> phys = ra.memory ? physicalSharedOffsets(ra) : std::nullopt;
    double wavefronts = static_cast<double>(!phys ? matrices : sharedWavefronts(*phys, 16, addressLanes));
    if (active_) {
      add(load ? Count::SharedLoadBytes : Count::SharedStoreBytes, bytes);
      add(Count::SharedWavefronts, wavefronts);
    }
    return;
  }
  case OpId::RowArgmin: case OpId::RowArgmax: case OpId::ColArgmin: case OpId::ColArgmax: {
    // Per element a compare and two selects, then per line (2 rows, or N / 4 columns) two (three) rounds of
    // two shuffles and the tie test.
    if (op.srcs.empty()) return;
    eval(*op.srcs[0]);
    double n = op.srcs[0]->type && op.srcs[0]->type->isFragment() ? static_cast<double>(op.srcs[0]->type->fragElementsPerThread()) : 1;
    const bool column = op.op->id == OpId::ColArgmin || op.op->id == OpId::ColArgmax;
    issue(3 * n + (column ? n / 2 * 3 : 2 * 2) * 8);
    return;
  }
  case OpId::Store: {
    if (op.dsts.empty() || op.srcs.empty()) return;
    eval(*op.srcs[0]);   // the conversion, if any
    ResolvedAccess dst = resolve(*op.dsts[0]);
    const Type *frag = op.srcs[0]->type;
    if (!frag || !frag->isFragment() || !dst.memory) return;
    int64_t elemBytes = std::max<unsigned>(1, scalarBits(frag->scalar) / 8);
    int64_t perThread = frag->fragElementsPerThread();
    int64_t instructions = std::max<int64_t>(1, perThread / 2);   // 2 elements per store
    issue(static_cast<double>(instructions));
    double bytes = static_cast<double>(perThread * elemBytes) * active;
    if (dst.space == AddressSpace::Global) {
      double rowBytes = static_cast<double>(8 * elemBytes);   // 4 lanes x 2 elements per row and instruction
      double sectorFactor = rowBytes >= 32 ? 1.0 : 32.0 / rowBytes;
      add(Count::SimtStoreBytes, bytes);
      add(Count::L2StoreBytes, bytes * sectorFactor);
      if (active_) {
        size_t site = siteFor(&op, dst.base, true);
        sites_[site].blockDeps |= dst.deps & kDepBlockAny;
        if (acc_.siteBytes.size() <= site) acc_.siteBytes.resize(site + 1, 0);
        acc_.siteBytes[site] += bytes * localWeight_;
      }
    } else {
      add(Count::SharedStoreBytes, bytes);
      add(Count::SharedWavefronts, static_cast<double>(instructions) * std::max(1.0, bytes / active * 32 / 128 /
                                                                                          static_cast<double>(instructions)));
    }
    return;
  }
  case OpId::MmaSync: {
    if (op.dsts.empty() || !active_) return;
    issue(1);
    const Type *acc = op.dsts[0]->type;
    const Type *a = op.srcs.empty() ? nullptr : op.srcs[0]->type;
    if (auto *bin = op.srcs.empty() ? nullptr : dynCast<BinaryExpr>(op.srcs[0].get())) a = bin->lhs->type;
    if (acc && acc->isFragment())
      add(Count::MmaSyncFlops, 2.0 * static_cast<double>(acc->m * acc->n * acc->k) * inputRateFactor(a));
    return;
  }
  case OpId::Wgmma: {
    if (op.dsts.empty() || !active_) return;
    const Type *acc = op.dsts[0]->type;
    const Expr *aExpr = nullptr, *bExpr = nullptr;
    if (op.srcs.size() >= 2) {
      aExpr = op.srcs[0].get();
      bExpr = op.srcs[1].get();
    } else if (!op.srcs.empty()) {
      if (auto *bin = dynCast<BinaryExpr>(op.srcs[0].get())) {
        aExpr = bin->lhs.get();
        bExpr = bin->rhs.get();
      }
    }
    if (!acc || !acc->isFragment() || !aExpr) return;
    const Type *a = aExpr->type;
    int64_t k = 16;
    double aBytes = 0, bBytes = 0;
    if (a && a->isTensor()) {
      std::vector<TensorDim> dims = a->allDims();
      // The type of A is [M, K] whether it is stored that way or read transposed (`at.T` of a [K, M] tile).
      if (!dims.empty()) k = dimValue(dims.back()).value_or(16);
      ResolvedAccess ra = resolve(*aExpr);
      aBytes = static_cast<double>(ra.tileElements * ra.elemBytes);
    } else if (a && a->isFragment()) {
      k = a->k;
    }
    if (bExpr) {
      ResolvedAccess rb = resolve(*bExpr);
      if (rb.memory) bBytes = static_cast<double>(rb.tileElements * rb.elemBytes);
    }
    double rate = inputRateFactor(a);
    int64_t kStep = rate < 1 ? 32 : 16;
    issue(static_cast<double>(std::max<int64_t>(1, k / kStep)) + 1);
    add(Count::WgmmaFlops, 2.0 * 64 * static_cast<double>(acc->n) * static_cast<double>(k) * rate / 4);
    add(Count::WgmmaSharedBytes, (aBytes + bBytes) / 4);
    add(Count::SharedWavefronts, (aBytes + bBytes) / 4 / 128);
    return;
  }
  case OpId::Tcgen05Mma: {
    // One thread issues K / 16 instructions of M x N x 16 (kind::f16); the operands are read from shared
    // memory (A and B tiles) by the tensor core, the accumulator stays in tensor memory.  Counted with the
    // warpgroup MMA path (WgmmaFlops: the asynchronous tensor-core rate of the machine).
    if (op.dsts.empty() || op.srcs.empty() || !active_) return;
    const Type *d = op.dsts[0]->type;
    const auto *bin = dynCast<BinaryExpr>(op.srcs[0].get());
    if (!d || !d->isTensor() || !bin || !bin->rhs->type || !bin->rhs->type->isTensor()) return;
    std::vector<TensorDim> dd = d->allDims(), bd = bin->rhs->type->allDims();
    if (dd.size() < 2 || bd.size() < 2) return;
    const double m = static_cast<double>(dimValue(dd[dd.size() - 2]).value_or(128));
    const double n = static_cast<double>(dimValue(dd.back()).value_or(0));
    const double k = static_cast<double>(dimValue(bd[bd.size() - 2]).value_or(16));
    double sharedBytes = 0;
    for (const Expr *e : {bin->lhs.get(), bin->rhs.get()}) {
      if (!e->type || !e->type->isTensor() || e->type->space != AddressSpace::Shared) continue;
      ResolvedAccess ra = resolve(*e);
      if (ra.memory) sharedBytes += static_cast<double>(ra.tileElements * ra.elemBytes);
    }
    issue(std::max(1.0, k / 16) + 2);
    add(Count::WgmmaFlops, 2.0 * m * n * k);
    add(Count::WgmmaSharedBytes, sharedBytes);
    add(Count::SharedWavefronts, sharedBytes / 128);
    return;
  }
  case OpId::Wait: {
    issue(2);
    const Decl *barrier = op.dsts.empty() ? nullptr : barrierDeclOf(op.dsts[0].get());
    bool tmaBarrier = barrier && tmaBarriers_.count(barrier);
    if (tmaBarrier) {
      int64_t stages = 1;
      if (const MBarrierInfo *mb = info_.mbarrierOf(static_cast<const MBarrierStmt *>(barrier))) stages = mb->count;
      acc_.chainAsync += localWeight_ / static_cast<double>(std::max<int64_t>(1, stages));
    }
    return;
  }
  case OpId::Syncthreads: case OpId::Sync: case OpId::ClusterSync: case OpId::ClusterWait:
    issue(1);
    add(Count::BlockBarriers, 1);
    acc_.chainBarriers += localWeight_;
    return;
  case OpId::Syncwarp:   // bar.warp.sync: one instruction, no block-wide wait
    issue(1);
    add(Count::WarpSyncs, 1);
    return;
  default:
    issue(1);
    return;
  }
}

} // namespace cake::cost::detail
