// TMA: bulk tensor copies between global and shared memory through CUtensorMap descriptors
// (docs/hopper.md "TMA").
//
//   tensor map     each tensor with tma(..) has an entry parameter `.param .align 64 .b8 cake_tmap_T[128]`
//                  (a CUtensorMap passed by value, as nvcc passes a `const __grid_constant__ CUtensorMap`);
//                  the instructions take its generic address: mov.u64 of the param symbol + cvta.param.u64.
//   tma.load D <- T[c0, .., cn] signal(M[s])
//     -> cp.async.bulk.tensor.{n+1}d.shared::cluster.global.mbarrier::complete_tx::bytes
//          [D], [tmap, {cn, .., c0}], [M + 8s]
//        coordinates are element indices, innermost dimension first (the CUtensorMap's order); out-of-range
//        box elements are zero-filled and still count towards the complete_tx bytes (the whole box).
//     with multicast(mask): ...complete_tx::bytes.multicast::cluster [D], [tmap, {..}], [M + 8s], mask16
//        the box lands at D's offset, and completes M[s], in every cluster CTA whose bit is set in mask.
//   tma.store T[c0, .., cn] <- S
//     -> cp.async.bulk.tensor.{n+1}d.global.shared::cta.bulk_group [tmap, {cn, .., c0}], [S]
//        (out-of-range box elements are not written)
//   tma.store.commit  -> cp.async.bulk.commit_group
//   tma.store.wait N  -> cp.async.bulk.wait_group.read N   (the shared source of all but N groups was read)
// Shared addresses are the tile's unswizzled start (SharedTile.cpp): TMA applies the map's swizzle.  A box
// whose dims of size 1 were dropped from the tile (box [1, 1, BT, D] into a [BT, D] tile) still takes one
// coordinate per tensor dim: the .4d form with {c3, c2, c1, c0}.  A tile of a column-blocked array (rows
// wider than the swizzle span) is one column block: its start is the block's start.
#include "codegen/KernelLowering.h"

#include "frontend/ASTPrinter.h"

namespace cake::codegen {

namespace {
const Clause *findClause(const OpStmt &s, std::string_view name) {
  for (const auto &c : s.clauses)
    if (c.name == name) return &c;
  return nullptr;
}

struct TmaTensorRef {
  const Param *param = nullptr;
  const TensorParamInfo *info = nullptr;
  std::vector<const Expr *> coords;   // outermost first, as written
};

std::optional<TmaTensorRef> tmaTensorRef(const Expr &e, const KernelInfo &info) {
  const auto *ix = dynCast<IndexExpr>(&e);
  if (!ix) return std::nullopt;
  const auto *n = dynCast<NameExpr>(ix->base.get());
  if (!n || !n->decl || n->decl->declKind != DeclKind::Param) return std::nullopt;
  TmaTensorRef r;
  r.param = static_cast<const Param *>(n->decl);
  r.info = info.tensorParamOf(r.param);
  if (!r.info || !r.info->tma) return std::nullopt;
  for (const auto &item : ix->items) {
    if (item.kind != IndexItem::Point) return std::nullopt;
    r.coords.push_back(item.start.get());
  }
  if (r.coords.size() != r.info->box.size() || r.coords.empty() || r.coords.size() > 5) return std::nullopt;
  return r;
}
} // namespace

// A tile of a column-blocked array is copied by TMA as rows one span wide packed one after the other: it
// must be one whole column block (sema checks constant starts; unrolled loop variables are checked here).
bool KernelLowering::columnBlockTile(const SharedTile &t, const Expr &tileExpr) {
  if (!t.layout.blocked()) return true;
  if (t.colPhase && *t.colPhase == 0 && !t.dims.empty() && t.dims.back() == t.layout.blockCols()) return true;
  const Expr *root = &tileExpr;
  while (const auto *ix = dynCast<IndexExpr>(root)) root = ix->base.get();
  const auto *n = dynCast<NameExpr>(root);
  diags_.report(DiagKind::TmaColumnBlock, tileExpr.range, printExpr(tileExpr), n ? n->name : std::string("the array"),
                t.colPhase ? "its first column is " + std::to_string(*t.colPhase) + " columns into a block of " +
                                 std::to_string(t.layout.blockCols())
                           : "its first column is not provably a multiple of the block width " +
                                 std::to_string(t.layout.blockCols()))
      .hint("start the slice at a multiple of " + std::to_string(t.layout.blockCols()) + " (64 * j for bf16 and 128B)");
  return false;
}

std::string KernelLowering::tensorMapAddress(const Param &p) {
  // Emitted at each use (two instructions ptxas hoists): a first use under a branch must not leave the
  // register undefined on other paths.
  std::string sym = out_.newReg(RegClass::B64), gen = out_.newReg(RegClass::B64);
  out_.inst("mov.u64 " + sym + ", cake_tmap_" + p.name);
  out_.inst("cvta.param.u64 " + gen + ", " + sym);
  return gen;
}

namespace {
// "{c_inner, .., c_outer}" as .b32 registers.
std::string coordinateList(KernelLowering &L, const std::vector<const Expr *> &coords, SourceRange where) {
  std::string list = "{";
  for (size_t i = coords.size(); i-- > 0;) {
    Value v = L.lowerExpr(*coords[i]);
    if (concreteScalar(v.type.elem) == Scalar::I64) v = L.convert(v, ValueType::scalar(Scalar::I32), where);
    list += L.reg(v);
    if (i) list += ", ";
  }
  return list + "}";
}
} // namespace

void KernelLowering::lowerTmaLoad(const OpStmt &s) {
  if (s.dsts.size() != 1 || s.srcs.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "tma.load other than 'tma.load TILE <- T[coords] signal(M)'");
    return;
  }
  auto src = tmaTensorRef(*s.srcs[0], info_);
  if (!src) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a tma.load source that is not a tma(..) tensor indexed by box coordinates");
    return;
  }
  auto dst = resolveSharedTile(*s.dsts[0]);
  if (!dst || dst->transposed) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a tma.load destination that is not a shared tile");
    return;
  }
  if (!columnBlockTile(*dst, *s.dsts[0])) return;
  const Clause *signal = findClause(s, "signal");
  auto bar = signal && signal->args.size() == 1 ? mbarrierAddress(*signal->args[0]) : std::nullopt;
  if (!bar) {
    diags_.report(DiagKind::CodegenUnsupportedForm, signal ? signal->range : s.range, "a tma.load without a signal(MBAR) barrier");
    return;
  }
  std::string dstAddr = tileAddress(*dst);
  std::string coords = coordinateList(*this, src->coords, s.srcs[0]->range);
  std::string tmap = tensorMapAddress(*src->param);
  std::string dim = std::to_string(src->coords.size()) + "d";
  std::string text = "cp.async.bulk.tensor." + dim + ".shared::cluster.global.mbarrier::complete_tx::bytes";
  if (const Clause *mc = findClause(s, "multicast"); mc && mc->args.size() == 1) {
    Value mask = lowerExpr(*mc->args[0]);
    std::string m16 = out_.newReg(RegClass::B16);
    if (auto c = constInt(mask)) {
      out_.inst("mov.b16 " + m16 + ", " + std::to_string(*c & 0xffff));
    } else {
      Value u = concreteScalar(mask.type.elem) == Scalar::I64 ? convert(mask, ValueType::scalar(Scalar::U32), mc->range) : mask;
      out_.inst("cvt.u16.u32 " + m16 + ", " + reg(u));
    }
    out_.inst(text + ".multicast::cluster [" + dstAddr + "], [" + tmap + ", " + coords + "], " + bar->str() + ", " + m16);
    return;
  }
  out_.inst(text + " [" + dstAddr + "], [" + tmap + ", " + coords + "], " + bar->str());
}

void KernelLowering::lowerTmaStore(const OpStmt &s) {
  if (s.dsts.size() != 1 || s.srcs.size() != 1) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "tma.store other than 'tma.store T[coords] <- TILE'");
    return;
  }
  auto dst = tmaTensorRef(*s.dsts[0], info_);
  if (!dst) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.dsts[0]->range, "a tma.store destination that is not a tma(..) tensor indexed by box coordinates");
    return;
  }
  auto src = resolveSharedTile(*s.srcs[0]);
  if (!src || src->transposed) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.srcs[0]->range, "a tma.store source that is not a shared tile");
    return;
  }
  if (!columnBlockTile(*src, *s.srcs[0])) return;
  std::string srcAddr = tileAddress(*src);
  std::string coords = coordinateList(*this, dst->coords, s.dsts[0]->range);
  std::string tmap = tensorMapAddress(*dst->param);
  out_.inst("cp.async.bulk.tensor." + std::to_string(dst->coords.size()) + "d.global.shared::cta.bulk_group [" + tmap +
            ", " + coords + "], [" + srcAddr + "]");
}

void KernelLowering::lowerTmaStoreCommit(const OpStmt &) { out_.inst("cp.async.bulk.commit_group"); }

void KernelLowering::lowerTmaStoreWait(const OpStmt &s) {
  std::optional<int64_t> n;
  if (s.dsts.size() == 1) n = constIntExpr(*s.dsts[0]);
  if (!n || *n < 0 || *n > 63) {
    diags_.report(DiagKind::CodegenUnsupportedForm, s.range, "tma.store.wait with a count that is not a constant in 0..63");
    return;
  }
  out_.inst("cp.async.bulk.wait_group.read " + std::to_string(*n));
}

} // namespace cake::codegen
