// The lane layout of accumulator fragments as element pairs, and the per-pair addresses (and global masks)
// of a destination tile - shared by the fragment `store` (LowerMma.cpp, LowerWgmma.cpp) and the fragment
// reduction `red.add T[r0, c0] <- ACC` (LowerAtomics.cpp).
//
//   mma_c m16n8 (PTX ISA "Matrix Fragments for mma.m16n8k16", accumulator C/D): with g = lane >> 2 and
//     t = lane & 3, c0, c1 lie at row g, columns 2t, 2t+1 and c2, c3 at row g + 8: pairs (0, 0) and (8, 0).
//   wgmma_acc 64 x N (PTX ISA "wgmma Register Fragment: Matrix D"): warp w = warp % 4 of the warpgroup owns
//     rows 16w .. 16w+15; with g = lane / 4, q = lane % 4, f32 registers d[4j], d[4j+1] hold row 16w+g,
//     columns 8j+2q, 8j+2q+1 and d[4j+2], d[4j+3] row 16w+g+8: pair p = 2j + h at (8h, 8j).
// Pair p is f32 registers 2p, 2p+1 (16-bit accumulators: packed register p) in both layouts.
//
// Destinations: a shared array gets one address per pair (memRefAt, so the array's swizzle applies); a
// global tensor gets one address per distinct row offset, each pair a constant byte offset from it (the
// innermost stride is one element), and, when masked, a predicate per pair: its row < dim[-2] and its first
// column < dim[-1] (as TMA stores clip, so a ragged edge tile is written correctly).
#include "codegen/KernelLowering.h"

#include <map>

namespace cake::codegen {

std::optional<AccumulatorLayout> KernelLowering::accumulatorLayout(const FragShape &f, SourceRange R) {
  AccumulatorLayout l;
  Value g = binaryOp(BinaryOp::Shr, *laneId_, Value::ofInt(Scalar::I32, 2), R);
  Value q = binaryOp(BinaryOp::BitAnd, *laneId_, Value::ofInt(Scalar::I32, 3), R);
  l.col = binaryOp(BinaryOp::Shl, q, Value::ofInt(Scalar::I32, 1), R);
  if (f.kind == FragKind::MmaC && f.m == 16 && f.n == 8) {
    l.row = g;
    l.pairs = {{0, 0}, {8, 0}};
    return l;
  }
  if (f.kind == FragKind::WgmmaAcc && f.m == 64) {
    Value warpInGroup = binaryOp(BinaryOp::BitAnd, *warpId_, Value::ofInt(Scalar::I32, 3), R);
    l.row = binaryOp(BinaryOp::Add, binaryOp(BinaryOp::Shl, warpInGroup, Value::ofInt(Scalar::I32, 4), R), g, R);
    for (int64_t j = 0; j < f.n / 8; ++j)
      for (int64_t h = 0; h < 2; ++h) l.pairs.push_back({8 * h, 8 * j});
    return l;
  }
  if (f.kind == FragKind::TmemAcc && f.m == 128) {
    // tcgen05.ld 32x32b: thread t of the warpgroup (warp w = warp % 4, lane l) holds lane 32w + l of tensor
    // memory, i.e. row 32w + l, columns 0 .. n-1 in its registers 0 .. n-1: pair j at (0, 2j).
    Value warpInGroup = binaryOp(BinaryOp::BitAnd, *warpId_, Value::ofInt(Scalar::I32, 3), R);
    l.row = binaryOp(BinaryOp::Add, binaryOp(BinaryOp::Shl, warpInGroup, Value::ofInt(Scalar::I32, 5), R), *laneId_, R);
    l.col = Value::ofInt(Scalar::I32, 0);
    for (int64_t j = 0; j < f.n / 2; ++j) l.pairs.push_back({0, 2 * j});
    return l;
  }
  return std::nullopt;
}

void KernelLowering::forEachAccumulatorPair(const FragmentStoreTarget &target, const AccumulatorLayout &layout,
                                            bool maskGlobal, SourceRange R, SourceRange dstRange,
                                            const std::function<void(size_t, const MemRef &, const std::string &)> &emit) {
  const Binding &dest = *target.tensor;
  const std::vector<Value> &idx = target.index;
  Value row = binaryOp(BinaryOp::Add, idx[idx.size() - 2], layout.row, R);
  Value col = binaryOp(BinaryOp::Add, idx.back(), layout.col, R);
  const GlobalTensor *global = std::get_if<GlobalTensor>(&dest);
  auto at = [&](int64_t rowOff, int64_t colOff) {
    std::vector<Value> a = idx;
    a[a.size() - 2] = binaryOp(BinaryOp::Add, row, Value::ofInt(Scalar::I32, rowOff), R);
    a.back() = binaryOp(BinaryOp::Add, col, Value::ofInt(Scalar::I32, colOff), R);
    return a;
  };
  if (!global) {
    for (size_t p = 0; p < layout.pairs.size(); ++p)
      emit(p, memRefAt(dest, at(layout.pairs[p].rowOff, layout.pairs[p].colOff), 2, dstRange), "");
    return;
  }
  const int64_t eb = std::max(1u, scalarBits(global->elem) / 8);
  const size_t rank = global->dims.size();
  std::map<int64_t, MemRef> rowRef;
  std::map<int64_t, std::string> rowOk, colOk;
  for (const auto &pr : layout.pairs) {
    if (rowRef.count(pr.rowOff)) continue;
    std::vector<Value> a = at(pr.rowOff, 0);
    rowRef[pr.rowOff] = memRefAt(dest, a, 2, dstRange);
    if (maskGlobal) {
      rowOk[pr.rowOff] = out_.newReg(RegClass::Pred);
      out_.inst("setp.lt.s32 " + rowOk[pr.rowOff] + ", " + reg(a[a.size() - 2]) + ", " + operand(global->dims[rank - 2]));
    }
  }
  if (maskGlobal)
    for (const auto &pr : layout.pairs) {
      if (colOk.count(pr.colOff)) continue;
      Value c = binaryOp(BinaryOp::Add, col, Value::ofInt(Scalar::I32, pr.colOff), R);
      colOk[pr.colOff] = out_.newReg(RegClass::Pred);
      out_.inst("setp.lt.s32 " + colOk[pr.colOff] + ", " + reg(c) + ", " + operand(global->dims[rank - 1]));
    }
  for (size_t p = 0; p < layout.pairs.size(); ++p) {
    const auto &pr = layout.pairs[p];
    MemRef m = rowRef[pr.rowOff];
    m.addr.offset += pr.colOff * eb;
    std::string mask;
    if (maskGlobal) {
      mask = out_.newReg(RegClass::Pred);
      out_.inst("and.pred " + mask + ", " + rowOk[pr.rowOff] + ", " + colOk[pr.colOff]);
    }
    emit(p, m, mask);
  }
}

} // namespace cake::codegen
