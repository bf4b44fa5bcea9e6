// Tensor-core operations and fragment memory traffic (docs/language.md 13.2, 13.3): mma.sync, wgmma,
// ldmatrix / stmatrix (.trans), `store` of fragments and row/column vectors, `red.add T <- FRAG`.
//
// The operands are gathered from the lanes' registers into logical matrices through fragCoord
// (Fragments.cpp), multiplied, and scattered back, so the layouts live in one place.  Numerics: the
// products of bf16/f16 inputs are exact in double (tf32 inputs too: 11-bit significands, so each product is
// also exact in f32); each instruction (k16, or k8) adds its K products to the accumulator element and rounds
// once to the accumulator type (f32 or f16).  Tensor cores do not specify
// their internal summation order, so results agree with the GPU within f32 accumulation error, not bit for
// bit.  A wgmma is executed when it is issued, warp by warp (each warp of the warpgroup owns the 16-row
// band 16 * (warp % 4) of the 64-row tile, and computes it from its band of A); what the hardware would still be
// doing - the registers it holds until wgmma.wait, the wgmma.fence rule - is tracked by WgmmaHazards.cpp.
#include "interp/WarpExecutor.h"

#include "frontend/Ops.h"

namespace cake::interp {

namespace {

double readTile(const SharedTile &t, int64_t r, int64_t c) {
  const SharedArray &a = *t.array;
  return loadScalar(a.bytes.data() + a.physical(t.at(r, c)), a.elem).f;
}

// Adds the K-products of one instruction to an accumulator element, rounding once.
double accumulate(double acc, double dot, ScalarKind accKind) { return roundToFloat(acc + dot, accKind); }

} // namespace

void WarpExecutor::execMmaSync(const OpStmt &op, LaneMask mask) {
  requireFullWarp("mma.sync", op.range, mask);
  auto *mul = dynCast<BinaryExpr>(op.srcs[0].get());
  if (!mul || mul->op != BinaryOp::Mul) CAKE_INTERNAL_ERROR("interpreter: mma.sync without A * B (sema)");
  const Type *ta = mul->lhs->type, *tb = mul->rhs->type, *tc = op.dsts[0]->type;
  const int K = int(tb->k), M = 16, N = 8;
  WarpValue a = eval(*mul->lhs, mask), b = eval(*mul->rhs, mask);
  Place pc = place(*op.dsts[0], mask, "mma.sync accumulator");
  WarpValue c = load(pc, mask, pc.elem);
  std::vector<double> A(size_t(M * K)), B(size_t(K * N));
  // tf32 inputs are rounded as the hardware reads them (already so when written through an element store).
  auto input = [](const Type *t, double v) { return t->scalar == ScalarKind::TF32 ? roundToFloat(v, ScalarKind::TF32) : v; };
  for (int l = 0; l < kLanes; ++l) {
    for (unsigned e = 0; e < a.width; ++e) {
      FragCoord x = fragCoord(ta, warp, l, e);
      A[size_t(x.row * K + x.col)] = input(ta, a.at(l, e).f);
    }
    for (unsigned e = 0; e < b.width; ++e) {
      FragCoord x = fragCoord(tb, warp, l, e);
      B[size_t(x.row * N + x.col)] = input(tb, b.at(l, e).f);
    }
  }
  const ScalarKind accKind = tc->scalar;
  for (int l = 0; l < kLanes; ++l)
    for (unsigned e = 0; e < c.width; ++e) {
      FragCoord x = fragCoord(tc, warp, l, e);
      double dot = 0;
      for (int k = 0; k < K; ++k) dot += A[size_t(x.row * K + k)] * B[size_t(k * N + x.col)];
      c.at(l, e).f = accumulate(c.at(l, e).f, dot, accKind);
    }
  store(pc, c, mask);
}

void WarpExecutor::execWgmma(const OpStmt &op, LaneMask mask) {
  requireFullWarp("wgmma", op.range, mask);
  auto *mul = dynCast<BinaryExpr>(op.srcs[0].get());
  if (!mul || mul->op != BinaryOp::Mul) CAKE_INTERNAL_ERROR("interpreter: wgmma without A * B (sema)");
  const Type *tc = op.dsts[0]->type;
  const int band = 16 * (warp % 4);
  SharedTile tb = sharedTile(*mul->rhs, mask);
  if (tb.dims.size() != 2) CAKE_INTERNAL_ERROR("interpreter: a wgmma B tile of rank != 2");
  const int K = int(tb.dims[0]), N = int(tb.dims[1]);
  if (N != tc->n) CAKE_INTERNAL_ERROR("interpreter: wgmma B tile width differs from the accumulator");
  std::vector<double> A(size_t(16 * K)), B(size_t(K * N));
  const Type *ta = mul->lhs->type;
  if (ta && ta->isFragment()) {
    const bool held = inWgmma;
    inWgmma = held && namesRegister(*mul->lhs);   // a computed A operand's reads are checked like any other
    WarpValue a = eval(*mul->lhs, mask);
    inWgmma = held;
    for (int l = 0; l < kLanes; ++l)
      for (unsigned e = 0; e < a.width; ++e) {
        FragCoord x = fragCoord(ta, warp, l, e);
        if (x.col < K) A[size_t((x.row - band) * K + x.col)] = a.at(l, e).f;
      }
  } else {
    SharedTile t = sharedTile(*mul->lhs, mask);
    if (t.dims.size() != 2 || t.dims[0] != 64 || t.dims[1] != K) CAKE_INTERNAL_ERROR("interpreter: a wgmma A tile that is not [64, K]");
    for (int i = 0; i < 16; ++i)
      for (int k = 0; k < K; ++k) {
        sharedAccess(*t.array, t.at(band + i, k), false, true);
        A[size_t(i * K + k)] = readTile(t, band + i, k);
      }
  }
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      sharedAccess(*tb.array, tb.at(k, n), false, true);
      B[size_t(k * N + n)] = readTile(tb, k, n);
    }
  Place pc = place(*op.dsts[0], mask, "wgmma accumulator");
  WarpValue c = load(pc, mask, pc.elem);
  const ScalarKind accKind = tc->scalar;
  const int step = 16;   // one instruction per 16 of K (bf16 / f16)
  for (int l = 0; l < kLanes; ++l)
    for (unsigned e = 0; e < c.width; ++e) {
      FragCoord x = fragCoord(tc, warp, l, e);
      const double *arow = &A[size_t((x.row - band) * K)];
      double acc = c.at(l, e).f;
      for (int k0 = 0; k0 < K; k0 += step) {
        double dot = 0;
        for (int k = k0; k < k0 + step && k < K; ++k) dot += arow[k] * B[size_t(k * N + x.col)];
        acc = accumulate(acc, dot, accKind);
      }
      c.at(l, e).f = acc;
    }
  store(pc, c, mask);
}

// ldmatrix (toShared = false) and stmatrix (true): register i of the fragment list is 8x8 matrix i, whose
// row r lies at the address lane 8i + r supplies.  Lane t holds row t / 4, elements 2(t % 4) + {0, 1} of
// each matrix (.trans: column t / 4, rows 2(t % 4) + {0, 1}).
void WarpExecutor::execMatrixMove(const OpStmt &op, LaneMask mask, bool toShared, bool trans) {
  requireFullWarp(op.name.c_str(), op.range, mask);
  const Expr &rowExpr = toShared ? *op.dsts[0] : *op.srcs[0];
  const auto &frags = toShared ? op.srcs : op.dsts;
  Place rows = place(rowExpr, mask, toShared ? "stmatrix" : "ldmatrix");
  if (rows.kind != Place::Shared) CAKE_INTERNAL_ERROR("interpreter: ldmatrix/stmatrix rows outside shared memory");
  SharedArray &sh = *rows.shared;
  struct Reg { size_t operand; unsigned reg; };
  std::vector<Reg> regs;
  std::vector<WarpValue> values;
  std::vector<Place> places;
  for (size_t f = 0; f < frags.size(); ++f) {
    const Type *t = frags[f]->type;
    for (unsigned r = 0; r < unsigned(t->fragRegistersPerThread()); ++r) regs.push_back({f, r});
    if (toShared) {
      values.push_back(eval(*frags[f], mask));
    } else {
      places.push_back(place(*frags[f], mask, "ldmatrix destination"));
      values.push_back(load(places.back(), mask, places.back().elem));
    }
  }
  for (size_t i = 0; i < regs.size(); ++i)
    for (int t = 0; t < kLanes; ++t)
      for (unsigned h = 0; h < 2; ++h) {
        int src = trans ? int(8 * i) + 2 * (t % 4) + int(h) : int(8 * i) + t / 4;
        int64_t j = trans ? t / 4 : 2 * (t % 4) + int(h);
        sharedAccess(sh, rows.offset[size_t(src)] + j, toShared);
        uint8_t *at = sh.bytes.data() + sh.physical(rows.offset[size_t(src)] + j);
        Scalar &v = values[regs[i].operand].at(t, 2 * regs[i].reg + h);
        if (toShared) storeScalar(at, sh.elem, v);
        else v = loadScalar(at, sh.elem);
      }
  if (!toShared)
    for (size_t f = 0; f < frags.size(); ++f) store(places[f], values[f], mask);
}

// `store DST[r0, c0] <- FRAG` and `red.add DST[r0, c0] <- FRAG` (add): every element at its tile place.
void WarpExecutor::execFragmentStore(const OpStmt &op, LaneMask mask, bool add) {
  const Expr *src = op.srcs[0].get();
  int64_t colLo = 0, colCount = -1;   // a column slice FRAG[:, c0 +: n]
  if (auto *ix = dynCast<IndexExpr>(src); ix && ix->base->type && ix->base->type->isFragment()) {
    if (ix->items.size() != 2 || ix->items[1].kind != IndexItem::Slice) fail(DiagKind::InterpUnsupported, src->range, {"this fragment slice"});
    colLo = constInt(*ix->items[1].start, mask);
    colCount = constInt(*ix->items[1].length, mask);
    src = ix->base.get();
  }
  const Type *t = src->type;
  if (!t || !t->isFragment()) CAKE_INTERNAL_ERROR("interpreter: a fragment store of a non-fragment");
  WarpValue v = eval(*src, mask);
  TileTarget tt = tileTarget(*op.dsts[0], mask);
  const bool global = tt.base.kind == Place::Global;
  const bool masked = global && (add || t->frag == FragKind::WgmmaAcc || t->isRowOrColVector());
  const size_t nd = tt.dims.size();
  const ScalarKind elem = global ? tt.base.global->elem : tt.base.shared->elem;
  const size_t eb = scalarBytes(elem);
  for (int l : lanesOf(mask)) {
    if (t->isRowVector() && l % 4 != 0) continue;   // the quad's four lanes hold the same row values
    if (t->isColVector() && l >= 4) continue;       // the eight lanes of a column too
    for (unsigned e = 0; e < v.width; ++e) {
      FragCoord c = fragCoord(t, warp, l, e);
      int64_t row = c.row, col = c.col;
      if (colCount >= 0) {
        if (col < colLo || col >= colLo + colCount) continue;
        col -= colLo;
      }
      // The element's indices: the list's, with the tile offsets added to the last one or two.
      std::vector<int64_t> idx = tt.start;
      if (t->isAccLayout()) {
        if (nd < 2) CAKE_INTERNAL_ERROR("interpreter: an accumulator stored into a 1-D tensor");
        idx[nd - 2] += row;
        idx[nd - 1] += col;
      } else {
        idx[nd - 1] += t->isRowVector() ? row : col;
      }
      int64_t off = tt.baseOffset;
      bool inside = true;
      for (size_t d = 0; d < nd; ++d) {
        if (idx[d] < 0 || idx[d] >= tt.dims[d]) {
          if (!masked)
            fail(DiagKind::InterpOutOfBounds, op.dsts[0]->range,
                 {add ? "reduction" : "store", std::string(tt.base.name), whereText(l), std::to_string(idx[d]), std::to_string(d),
                  std::to_string(tt.dims[d])}, "guard the store, or require the shape that keeps the tile inside");
          inside = false;
        }
        off += (idx[d] - tt.start[d]) * tt.strides[d];
      }
      if (!inside) continue;
      if (!global) sharedAccess(*tt.base.shared, off, true);
      uint8_t *at = global ? tt.base.global->bytes.data() + size_t(off) * eb : tt.base.shared->bytes.data() + tt.base.shared->physical(off);
      Scalar s = v.at(l, e);
      ScalarKind from = v.kind.isUntyped() ? (v.kind.isFloat() ? ScalarKind::F32 : ScalarKind::I64) : v.kind.scalar;
      s = convertScalar(s, from, elem);
      if (add) {
        Scalar cur = loadScalar(at, elem);
        if (isFloatScalar(elem)) s.f = roundToFloat(cur.f + s.f, elem);
        else s.i = wrapToInt(int64_t(uint64_t(cur.i) + uint64_t(s.i)), elem);
      }
      storeScalar(at, elem, s);
    }
  }
}

} // namespace cake::interp
