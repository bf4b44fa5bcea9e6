// Shared tiles used as whole operands: the destination/source of TMA copies and the operands of wgmma.
//
// A tile expression is a shared array, indexed group by group with points (the dim disappears), slices
// `i +: n` (the dim keeps length n) and `:` (the whole dim), optionally followed by `.T`:
//     a[s]                     stage s of `shared a: bf16[S][BM, BK]`        -> [BM, BK]
//     a[s][64 * i +: 64, :]    64 rows of it                                 -> [64, BK]
//     b[s][:, kk * 16 +: 16].T 16 columns of stage s, read transposed        -> [BN, 16], transposed
// Its address is the array's base plus the *linear* (unswizzled) byte offset of the first element: TMA
// and wgmma apply the 32/64/128-byte swizzle themselves from the address bits (PTX ISA "Tensor swizzling
// modes": the pattern is a function of the shared-memory address, repeating every 256/512/1024 bytes), so
// a tile that starts on a swizzle-atom boundary, or at a 16-byte column offset inside the first row of an
// atom (how wgmma steps along K), is described by its unswizzled start address.
#include "codegen/KernelLowering.h"

namespace cake::codegen {

int64_t SharedTile::bytes() const {
  int64_t n = array ? std::max<int64_t>(1, scalarBits(array->elem) / 8) : 0;
  for (int64_t d : dims) n *= d;
  return n;
}

std::optional<SharedTile> KernelLowering::resolveSharedTile(const Expr &e) {
  SharedTile tile;
  const Expr *cur = &e;
  if (const auto *m = dynCast<MemberExpr>(cur); m && m->member == "T") {
    tile.transposed = true;
    cur = m->base.get();
  }
  std::vector<const IndexExpr *> chain;
  while (const auto *ix = dynCast<IndexExpr>(cur)) {
    chain.push_back(ix);
    cur = ix->base.get();
  }
  const auto *n = dynCast<NameExpr>(cur);
  auto it = n && n->decl ? env_.find(n->decl) : env_.end();
  const SharedArray *arr = it != env_.end() ? std::get_if<SharedArray>(&it->second) : nullptr;
  if (!arr || arr->tmemColumns) return std::nullopt;   // tensor-memory tiles: resolveTmemTile (LowerTcgen05.cpp)
  tile.array = arr;
  std::vector<int64_t> dims;
  for (const auto &g : arr->groups) dims.insert(dims.end(), g.begin(), g.end());
  const int64_t eb = std::max<int64_t>(1, scalarBits(arr->elem) / 8);
  tile.layout = columnBlocks(*arr);
  std::vector<int64_t> strides(dims.size(), eb);
  for (size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * dims[k];
  if (dims.size() >= 2) strides[dims.size() - 2] = tile.layout.rowStride();   // rows inside a column block
  // Items of all bracket groups in order; missing trailing groups mean whole dims.
  std::vector<const IndexItem *> items;
  for (auto rit = chain.rbegin(); rit != chain.rend(); ++rit)
    for (const auto &item : (*rit)->items) items.push_back(&item);
  if (items.size() > dims.size()) return std::nullopt;
  int64_t constOff = arr->offset;
  std::string acc;   // .b32 register with the dynamic part of the offset
  std::vector<int64_t> keptStrides;
  tile.colPhase = 0;
  for (size_t k = 0; k < dims.size(); ++k) {
    const IndexItem *item = k < items.size() ? items[k] : nullptr;
    if (!item || item->kind == IndexItem::Full) {
      tile.dims.push_back(dims[k]);
      keptStrides.push_back(strides[k]);
      continue;
    }
    if (item->kind == IndexItem::Slice) {
      auto len = constIntExpr(*item->length);
      if (!len || *len < 1 || *len > dims[k]) {
        diags_.report(DiagKind::CodegenUnsupportedForm, item->range, "a tile slice whose length is not a constant within the dim");
        return std::nullopt;
      }
      tile.dims.push_back(*len);
      keptStrides.push_back(strides[k]);
    }
    if (k + 1 == dims.size() && tile.layout.blocked())
      tile.colPhase = accumulateColumnOffset(lowerExpr(*item->start), item->start.get(), tile.layout, acc, constOff, item->range);
    else
      accumulateSharedOffset(lowerExpr(*item->start), strides[k], acc, constOff, item->range);
  }
  if (tile.dims.empty()) return std::nullopt;   // a single element, not a tile
  tile.rowBytes = keptStrides.size() >= 2 ? keptStrides[keptStrides.size() - 2] : 0;
  if (acc.empty()) {
    tile.baseReg = smemBase();
  } else {
    std::string a = out_.newReg(RegClass::B32);
    out_.inst("add.s32 " + a + ", " + smemBase() + ", " + acc);
    tile.baseReg = a;
  }
  tile.offset = constOff;
  return tile;
}

ColumnBlocks KernelLowering::columnBlocks(const SharedArray &a) {
  ColumnBlocks l;
  std::vector<int64_t> dims;
  for (const auto &g : a.groups) dims.insert(dims.end(), g.begin(), g.end());
  l.elemBytes = std::max<int64_t>(1, scalarBits(a.elem) / 8);
  l.cols = dims.empty() ? 0 : dims.back();
  l.rows = dims.size() >= 2 ? dims[dims.size() - 2] : 1;
  l.span = a.swizzleBytes;
  return l;
}

// Column c of a column-blocked array: (c / W) * blockBytes + (c % W) * elemBytes.  A constant column folds
// into constOff; a column provably a multiple of W adds (c >> log2 W) * blockBytes; any other column splits
// at run time (shr / and).  Returns c % W when it is known.
std::optional<int64_t> KernelLowering::accumulateColumnOffset(Value col, const Expr *colExpr, const ColumnBlocks &l,
                                                              std::string &acc, int64_t &constOff, SourceRange where) {
  if (!l.blocked()) {
    accumulateSharedOffset(col, l.elemBytes, acc, constOff, where);
    if (auto c = constInt(col)) return *c % std::max<int64_t>(1, l.cols);
    return std::nullopt;
  }
  const int64_t w = l.blockCols();
  if (auto c = constInt(col)) {
    constOff += (*c / w) * l.blockBytes() + (*c % w) * l.elemBytes;
    return *c % w;
  }
  int64_t log2w = 0;
  while ((int64_t{1} << log2w) < w) ++log2w;
  Value block = binaryOp(BinaryOp::Shr, col, Value::ofInt(Scalar::I32, log2w), where);
  accumulateSharedOffset(block, l.blockBytes(), acc, constOff, where);
  if (colExpr && provablyMultipleOf(*colExpr, w)) return 0;
  Value within = binaryOp(BinaryOp::BitAnd, col, Value::ofInt(Scalar::I32, w - 1), where);
  accumulateSharedOffset(within, l.elemBytes, acc, constOff, where);
  return std::nullopt;
}

std::string KernelLowering::tileAddress(const SharedTile &t) {
  if (t.offset == 0) return t.baseReg;
  std::string r = out_.newReg(RegClass::B32);
  out_.inst("add.s32 " + r + ", " + t.baseReg + ", " + std::to_string(t.offset));
  return r;
}

} // namespace cake::codegen
