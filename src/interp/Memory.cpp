// Places: register, shared and global addressing with bounds checks; loads and stores (see WarpExecutor.h).
//
// An index chain `a[s][r, c +: 8]` is resolved from its root outwards.  Each bracket group indexes the
// outermost remaining group of the base's type: a point adds index * stride, a slice `i +: n` adds
// i * stride and keeps n elements (innermost dimension only, by sema).  Strides are row-major over the
// declared dims for registers and shared arrays (shared arrays are indexed logically; the physical byte is
// found per element through the array's swizzle / column-block layout, SharedLayout.h) and the tensor's
// own strides (manifest `dims`/`strides`) for global tensors.  Every index is checked against its
// dimension for every active lane (E0901) before any byte moves.
#include "interp/WarpExecutor.h"

namespace cake::interp {

int64_t SharedArray::physical(int64_t linearElement) const {
  int64_t b = linearElement * int64_t(scalarBytes(elem));
  return layout.span > 0 ? layout.physical(b) : b;
}

void WarpExecutor::sharedAccess(SharedArray &a, int64_t logical, bool write, bool async) {
  RaceDetector *r = block.races;
  if (!r) return;
  if (a.shadow.empty()) a.shadow.resize(a.bytes.size() / scalarBytes(a.elem));
  RaceAccess acc;
  acc.agent = agent();
  acc.clock = r->clock(acc.agent)[size_t(acc.agent)];
  acc.at = current ? current->range : launch.kernel->nameRange;
  acc.async = async;
  if (r->finding) return;
  size_t index = size_t(a.physical(logical)) / scalarBytes(a.elem);
  r->access(a.shadow, index, acc, r->clock(acc.agent), write, atomicAccess, a.decl->name, a.dims, logical, block.async->seed);
}

namespace {

struct IndexFrame {
  std::vector<int64_t> dims, strides;   // of the group the index list addresses
  int64_t elemWidth = 1;                // scalars per element (register arrays of vectors)
  int64_t rest = 1;                     // elements (x elemWidth) below this group: the length of a partial index
};

// The dims and strides the next index list of `base` (of type t) addresses.
IndexFrame frameFor(const Place &p, const Type *t, WarpExecutor &x, SourceRange where) {
  IndexFrame f;
  if (p.kind == Place::Global) {
    if (!t->isTensor() || t->groups.size() != 1) x.fail(DiagKind::InterpUnsupported, where, {"this view of a global tensor"});
    f.dims = p.global->dims;
    f.strides = p.global->strides;
    return f;
  }
  if (t->isVector() || t->isFragment()) {   // element access v[j], acc[i]
    f.dims = {int64_t(WarpExecutor::widthOf(t))};
    f.strides = {1};
    return f;
  }
  if (!t->isTensor()) x.fail(DiagKind::InterpUnsupported, where, {"indexing a value of type " + typeToString(t)});
  f.elemWidth = t->element ? WarpExecutor::widthOf(t->element) : 1;
  if (p.kind == Place::Shared && f.elemWidth != 1) x.fail(DiagKind::InterpUnsupported, where, {"shared arrays of vectors"});
  std::vector<TensorDim> all = t->allDims();
  size_t n = t->groups.front().size();
  int64_t below = 1;
  std::vector<int64_t> strides(all.size());
  for (size_t i = all.size(); i-- > 0;) {
    strides[i] = below * f.elemWidth;
    if (!all[i].value) x.fail(DiagKind::InterpUnsupported, where, {"an array with a run-time dimension"});
    below *= *all[i].value;
  }
  for (size_t i = 0; i < n; ++i) {
    f.dims.push_back(*all[i].value);
    f.strides.push_back(strides[i]);
  }
  f.rest = 1;
  for (size_t i = n; i < all.size(); ++i) f.rest *= *all[i].value;
  return f;
}

} // namespace

Place WarpExecutor::place(const Expr &e, LaneMask mask, const char *access) {
  if (auto *name = dynCast<NameExpr>(&e)) {
    Place p;
    p.name = name->name;
    const Decl *d = name->decl;
    switch (d ? d->declKind : DeclKind::Builtin) {
    case DeclKind::Var: case DeclKind::Let: case DeclKind::LoopVar: {
      auto it = env.find(d);
      if (it == env.end()) CAKE_INTERNAL_ERROR("interpreter: '" + name->name + "' used before its declaration ran");
      p.kind = Place::Register;
      p.reg = d;
      p.elem = it->second.kind;
      p.length = it->second.width;
      return p;
    }
    case DeclKind::Shared: {
      auto it = block.shared.find(static_cast<const SharedStmt *>(d));
      if (it == block.shared.end()) CAKE_INTERNAL_ERROR("interpreter: shared array '" + name->name + "' not allocated");
      p.kind = Place::Shared;
      p.shared = &it->second;
      p.elem = ValueKind::of(it->second.elem);
      int64_t n = 1;
      for (int64_t dim : it->second.dims) n *= dim;
      p.length = unsigned(n);
      return p;
    }
    case DeclKind::Param: {
      auto it = launch.globals.find(static_cast<const Param *>(d));
      if (it == launch.globals.end()) fail(DiagKind::InterpUnsupported, e.range, {"assigning to a scalar parameter"});
      p.kind = Place::Global;
      p.global = &it->second;
      p.elem = ValueKind::of(it->second.elem);
      p.length = 0;
      return p;
    }
    default: fail(DiagKind::InterpUnsupported, e.range, {"'" + name->name + "' as a memory location"});
    }
  }
  auto *ix = dynCast<IndexExpr>(&e);
  if (!ix) fail(DiagKind::InterpUnsupported, e.range, {"this expression as a memory location"});
  Place p = place(*ix->base, mask, access);
  IndexFrame f = frameFor(p, ix->base->type, *this, e.range);
  if (ix->items.size() != f.dims.size()) CAKE_INTERNAL_ERROR("interpreter: index count differs from the dims (sema E0306)");
  int64_t sliceLength = -1;
  for (size_t d = 0; d < ix->items.size(); ++d) {
    const IndexItem &item = ix->items[d];
    if (item.kind == IndexItem::Full) fail(DiagKind::InterpUnsupported, item.range, {"whole-dimension ':' tiles"});
    WarpValue start = eval(*item.start, mask);
    int64_t n = 1;
    if (item.kind == IndexItem::Slice) {
      n = constInt(*item.length, mask);
      sliceLength = n;
    }
    for (int l : lanesOf(mask)) {
      int64_t i = start.at(l).i;
      if (i < 0 || i + n > f.dims[d]) {
        std::string shown = item.kind == IndexItem::Slice ? std::to_string(i) + " +: " + std::to_string(n) : std::to_string(i);
        fail(DiagKind::InterpOutOfBounds, item.range,
             {access, std::string(p.name), whereText(l), shown, std::to_string(d), std::to_string(f.dims[d])},
             "guard the access with an 'if', or require the shape that makes it safe");
      }
      p.offset[size_t(l)] += i * f.strides[d];
    }
  }
  if (p.kind == Place::Global) p.length = unsigned(sliceLength > 0 ? sliceLength : 1);
  else p.length = unsigned((sliceLength > 0 ? sliceLength : 1) * f.rest * f.elemWidth);
  return p;
}

WarpValue WarpExecutor::load(const Place &p, LaneMask mask, ValueKind kind) {
  if (p.kind == Place::Register) wgmmaRegisterAccess(p, mask, false);
  const bool tf32 = !p.elem.isUntyped() && p.elem.scalar == ScalarKind::TF32;   // tf32 fragment elements read as f32
  WarpValue v(tf32 ? ValueKind::of(ScalarKind::F32) : p.elem, p.length);
  for (int l : lanesOf(mask)) {
    int64_t off = p.offset[size_t(l)];
    for (unsigned e = 0; e < p.length; ++e) {
      switch (p.kind) {
      case Place::Register: {
        const WarpValue &r = env.at(p.reg);
        if (off + e >= r.width) CAKE_INTERNAL_ERROR("interpreter: a register read past the value's width");
        v.at(l, e) = r.at(l, unsigned(off + e));
        break;
      }
      case Place::Shared:
        sharedAccess(*p.shared, off + e, false);
        v.at(l, e) = loadScalar(p.shared->bytes.data() + p.shared->physical(off + e), p.shared->elem);
        break;
      case Place::Global:
        v.at(l, e) = loadScalar(p.global->bytes.data() + (off + e) * scalarBytes(p.global->elem), p.global->elem);
        break;
      }
    }
  }
  (void)kind;
  return v;
}

void WarpExecutor::store(const Place &p, const WarpValue &value, LaneMask mask) {
  WarpValue v = adapt(value, p.elem, mask);
  const bool tf32 = !p.elem.isUntyped() && p.elem.scalar == ScalarKind::TF32;   // an f32 written into a tf32 fragment
  if (v.width != 1 && v.width != p.length)
    CAKE_INTERNAL_ERROR("interpreter: storing " + std::to_string(v.width) + " elements to " + std::to_string(p.length));
  if (p.kind == Place::Register) wgmmaRegisterAccess(p, mask, true);
  WarpValue *reg = p.kind == Place::Register ? &env.at(p.reg) : nullptr;
  for (int l : lanesOf(mask)) {
    int64_t off = p.offset[size_t(l)];
    for (unsigned e = 0; e < p.length; ++e) {
      const Scalar &s = v.at(l, v.width == 1 ? 0 : e);
      switch (p.kind) {
      case Place::Register:
        if (off + e >= reg->width) CAKE_INTERNAL_ERROR("interpreter: a register write past the value's width");
        reg->at(l, unsigned(off + e)) = s;
        if (tf32) reg->at(l, unsigned(off + e)).f = roundToFloat(s.f, ScalarKind::TF32);   // cvt.rna.tf32.f32
        break;
      case Place::Shared:
        sharedAccess(*p.shared, off + e, true);
        storeScalar(p.shared->bytes.data() + p.shared->physical(off + e), p.shared->elem, s);
        break;
      case Place::Global:
        storeScalar(p.global->bytes.data() + (off + e) * scalarBytes(p.global->elem), p.global->elem, s);
        break;
      }
    }
  }
}

TileTarget WarpExecutor::tileTarget(const Expr &e, LaneMask mask) {
  auto *ix = dynCast<IndexExpr>(&e);
  if (!ix) fail(DiagKind::InterpUnsupported, e.range, {"this fragment store destination"});
  TileTarget t;
  t.base = place(*ix->base, mask, "store");
  IndexFrame f = frameFor(t.base, ix->base->type, *this, e.range);
  t.dims = f.dims;
  t.strides = f.strides;
  t.baseOffset = mask ? t.base.offset[size_t(__builtin_ctz(mask))] : 0;
  for (size_t d = 0; d < ix->items.size(); ++d) {
    int64_t i = constInt(*ix->items[d].start, mask);
    t.start.push_back(i);
    t.baseOffset += i * f.strides[d];
  }
  return t;
}

WarpValue WarpExecutor::gather(const IndexExpr &e, LaneMask mask) {
  Place p = place(*e.base, mask, "gather");
  if (p.kind == Place::Register) fail(DiagKind::InterpUnsupported, e.range, {"a gather from registers"});
  IndexFrame f = frameFor(p, e.base->type, *this, e.range);
  const unsigned width = widthOf(e.type);
  std::vector<WarpValue> idx;
  for (const IndexItem &item : e.items) {
    if (item.kind != IndexItem::Point) fail(DiagKind::InterpUnsupported, item.range, {"a sliced gather"});
    idx.push_back(eval(*item.start, mask));
  }
  const bool global = p.kind == Place::Global;
  const ScalarKind elem = global ? p.global->elem : p.shared->elem;
  WarpValue v(ValueKind::of(elem), width);
  for (int l : lanesOf(mask))
    for (unsigned el = 0; el < width; ++el) {
      int64_t off = p.offset[size_t(l)];
      bool inside = true;
      for (size_t d = 0; d < idx.size(); ++d) {
        int64_t i = idx[d].at(l, idx[d].width == 1 ? 0 : el).i;
        if (i < 0 || i >= f.dims[d]) {
          if (!global)
            fail(DiagKind::InterpOutOfBounds, e.items[d].range,
                 {"gather", std::string(p.name), whereText(l), std::to_string(i), std::to_string(d), std::to_string(f.dims[d])});
          inside = false;   // a global gather is masked: out-of-range elements read 0
        }
        off += i * f.strides[d];
      }
      if (!inside) continue;
      if (!global) sharedAccess(*p.shared, off, false);
      v.at(l, el) = global ? loadScalar(p.global->bytes.data() + size_t(off) * scalarBytes(elem), elem)
                           : loadScalar(p.shared->bytes.data() + p.shared->physical(off), elem);
    }
  return v;
}

} // namespace cake::interp
