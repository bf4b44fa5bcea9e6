// Fragments as values (docs/language.md 5.3, 5.6): lane layouts, broadcasts of row/column vectors,
// `.row` / `.col`, row and column reductions, rowargmin & co.
//
// A fragment value is a WarpValue whose width is the elements each thread holds (fragElementsPerThread),
// at the hardware's lane layout; an array of fragments is their concatenation.  fragCoord gives each
// element's place in the tile, from which everything else follows: with g = lane / 4, q = lane % 4 and
// w = warp % 4 (the warp's 16-row band of a wgmma tile), accumulator and A elements e sit at row
// R0 + 8 * ((e / 2) % 2), column 2q + 8 * (e / 4) + e % 2 (R0 = g, or 16w + g for wgmma); B elements
// (mma_b, K x 8) at k = 2q + 8 * (e / 2) + e % 2, column g; tf32 A elements (m16n8k8, one per register) at
// row g + 8 * (e % 2), k q + 4 * (e / 2), tf32 B elements at k q + 4e, column g; row-vector element r at row R0 + 8r; column-vector
// element c at column 2q + 8 * (c / 2) + c % 2.  Reductions follow the generated code exactly (a balanced
// pairwise tree over the thread's elements in column / row order, then butterfly shuffles: xor 1, 2 over a
// quad for rows, xor 4, 8, 16 for columns), so f32 sums round as on the GPU; argmin/argmax break ties
// toward the smaller column (row).
#include "support/FoldPairwise.h"
#include "interp/WarpExecutor.h"

#include "frontend/Intrinsics.h"
#include "frontend/Ops.h"

#include <cmath>

namespace cake::interp {

FragCoord fragCoord(const Type *t, int warp, int lane, unsigned e) {
  const int g = lane / 4, q = lane % 4;
  const int band = t->isWgmmaFrag() ? 16 * (warp % 4) : 0;
  const int ei = int(e);
  if (t->scalar == ScalarKind::TF32) {   // m16n8k8 tf32: one 32-bit element per register
    if (t->frag == FragKind::MmaA) return {g + 8 * (ei % 2), q + 4 * (ei / 2)};
    if (t->frag == FragKind::MmaB) return {q + 4 * ei, g};
  }
  switch (t->frag) {
  case FragKind::MmaA: case FragKind::WgmmaA: case FragKind::MmaC: case FragKind::WgmmaAcc:
    return {band + g + 8 * ((ei / 2) % 2), 2 * q + 8 * (ei / 4) + ei % 2};
  case FragKind::MmaB: return {2 * q + 8 * (ei / 2) + ei % 2, g};
  case FragKind::MmaRow: case FragKind::WgmmaRow: return {band + g + 8 * ei, 0};
  case FragKind::MmaCol: case FragKind::WgmmaCol: return {0, 2 * q + 8 * (ei / 2) + ei % 2};
  case FragKind::TmemAcc: return {32 * (warp % 4) + lane, ei};   // tcgen05.ld 32x32b: one row per thread
  }
  return {0, 0};
}

// The row (column) vector element that accumulator element e meets.
static unsigned rowSlot(unsigned e) { return (e / 2) % 2; }
static unsigned colSlot(unsigned e) { return 2 * (e / 4) + e % 2; }

WarpValue broadcastFragment(WarpValue v, const Type *from, const Type *to, LaneMask mask) {
  if (!from || !to || !from->isFragment() || !to->isFragment() || !from->isRowOrColVector() || !to->isAccLayout()) return v;
  unsigned width = unsigned(to->fragElementsPerThread());
  WarpValue out(v.kind, width);
  bool row = from->isRowVector();
  for (int l : lanesOf(mask))
    for (unsigned e = 0; e < width; ++e) out.at(l, e) = v.at(l, row ? rowSlot(e) : colSlot(e));
  return out;
}

WarpValue WarpExecutor::fragmentCoords(const Type *t, bool column, LaneMask mask) {
  unsigned width = unsigned(t->fragElementsPerThread());
  WarpValue out(ValueKind::of(ScalarKind::I32), width);
  for (int l : lanesOf(mask))
    for (unsigned e = 0; e < width; ++e) {
      FragCoord c = fragCoord(t, warp, l, e);
      out.at(l, e).i = column ? c.col : c.row;
    }
  return out;
}

namespace {

enum class Fold { Sum, Max, Min };

Scalar combineScalars(Fold f, ValueKind k, const Scalar &a, const Scalar &b) {
  Scalar r;
  if (k.isFloat()) {
    if (f == Fold::Sum) r.f = k.isUntyped() ? a.f + b.f : roundToFloat(a.f + b.f, k.scalar);
    else r.f = f == Fold::Max ? std::fmax(a.f, b.f) : std::fmin(a.f, b.f);
  } else {
    if (f == Fold::Sum) r.i = k.isUntyped() ? a.i + b.i : wrapToInt(int64_t(uint64_t(a.i) + uint64_t(b.i)), k.scalar);
    else r.i = f == Fold::Max ? std::max(a.i, b.i) : std::min(a.i, b.i);
  }
  return r;
}

// The accumulator elements of each row (column) slot, in column (row) order.
std::vector<std::vector<unsigned>> lineGroups(unsigned width, bool column) {
  std::vector<std::vector<unsigned>> groups(column ? width / 2 : 2);
  for (unsigned e = 0; e < width; ++e) groups[column ? colSlot(e) : rowSlot(e)].push_back(e);
  return groups;
}

std::vector<int> lineShuffles(bool column) { return column ? std::vector<int>{4, 8, 16} : std::vector<int>{1, 2}; }

bool better(bool isMax, ValueKind k, const Scalar &cand, const Scalar &cur) {
  if (k.isFloat()) return isMax ? cand.f > cur.f : cand.f < cur.f;
  return isMax ? cand.i > cur.i : cand.i < cur.i;
}
bool same(ValueKind k, const Scalar &a, const Scalar &b) { return k.isFloat() ? a.f == b.f : a.i == b.i; }

} // namespace

WarpValue WarpExecutor::lineReduce(const CallExpr &c, LaneMask mask) {
  requireFullWarp(c.callee.c_str(), c.range, mask);
  const Type *t = c.args[0]->type;
  if (!t || !t->isAccLayout()) CAKE_INTERNAL_ERROR("interpreter: a row/column reduction of a non-accumulator");
  const bool column = c.callee.substr(0, 3) == "col";
  const std::string op = c.callee.substr(3);
  const Fold f = op == "max" ? Fold::Max : op == "min" ? Fold::Min : Fold::Sum;
  WarpValue v = eval(*c.args[0], mask);
  auto groups = lineGroups(v.width, column);
  WarpValue out(v.kind, unsigned(groups.size()));
  for (int l = 0; l < kLanes; ++l)
    for (size_t s = 0; s < groups.size(); ++s) {
      std::vector<Scalar> line;
      for (unsigned e : groups[s]) line.push_back(v.at(l, e));
      out.at(l, unsigned(s)) = foldPairwise(line, [&](const Scalar &a, const Scalar &b) { return combineScalars(f, v.kind, a, b); });
    }
  for (int m : lineShuffles(column)) {
    WarpValue next = out;
    for (int l = 0; l < kLanes; ++l)
      for (unsigned s = 0; s < out.width; ++s) next.at(l, s) = combineScalars(f, v.kind, out.at(l, s), out.at(l ^ m, s));
    out = std::move(next);
  }
  return out;
}

void WarpExecutor::execArgReduce(const OpStmt &op, LaneMask mask) {
  requireFullWarp(op.name.c_str(), op.range, mask);
  const bool column = op.op->id == OpId::ColArgmin || op.op->id == OpId::ColArgmax;
  const bool isMax = op.op->id == OpId::RowArgmax || op.op->id == OpId::ColArgmax;
  const Type *t = op.srcs[0]->type;
  WarpValue v = eval(*op.srcs[0], mask);
  auto groups = lineGroups(v.width, column);
  using Pair = std::pair<Scalar, int64_t>;   // value, column (row)
  WarpValue best(v.kind, unsigned(groups.size())), where(ValueKind::of(ScalarKind::I32), unsigned(groups.size()));
  auto pick = [&](const Pair &a, const Pair &b) {   // b only when strictly better, or equal with a smaller index
    if (better(isMax, v.kind, b.first, a.first) || (same(v.kind, a.first, b.first) && b.second < a.second)) return b;
    return a;
  };
  for (int l = 0; l < kLanes; ++l)
    for (size_t s = 0; s < groups.size(); ++s) {
      std::vector<Pair> line;
      for (unsigned e : groups[s]) {
        FragCoord c = fragCoord(t, warp, l, e);
        line.push_back({v.at(l, e), column ? c.row : c.col});
      }
      Pair r = foldPairwise(line, pick);
      best.at(l, unsigned(s)) = r.first;
      where.at(l, unsigned(s)).i = r.second;
    }
  for (int m : lineShuffles(column)) {
    WarpValue nb = best, nw = where;
    for (int l = 0; l < kLanes; ++l)
      for (unsigned s = 0; s < best.width; ++s) {
        Pair r = pick({best.at(l, s), where.at(l, s).i}, {best.at(l ^ m, s), where.at(l ^ m, s).i});
        nb.at(l, s) = r.first;
        nw.at(l, s).i = r.second;
      }
    best = std::move(nb);
    where = std::move(nw);
  }
  store(place(*op.dsts[0], mask, "store"), best, mask);
  store(place(*op.dsts[1], mask, "store"), where, mask);
}

} // namespace cake::interp
