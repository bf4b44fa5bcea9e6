// Sema, Blackwell tensor memory (sm_100a): `tmem` declarations and the typing rules of the tcgen05
// operations (their form, arity and clauses are checked by SemaOps.cpp's OpChecker, which calls these).
//
//   tmem NAME: T[S][128, N];   T a 32-bit type (one column per element) or bf16/f16 (two per column, for a
//                              tcgen05.mma A operand); the innermost group is [128 lanes, N]; the columns
//                              S * N (halved for 16-bit T) are allocated in a power of two >= 32, <= 512
//                              (E0380).  The declaration also owns a 4-byte shared slot: tcgen05.alloc writes
//                              the allocation's base address there, every other use reads it back.
//   tcgen05.mma D += A * B     D an f32 tmem tile [128, N] (N a multiple of 16 in 16..256; M = 64 is not
//                              supported), A a shared [128, K] tile (K-major) or a 16-bit tmem tile
//                              [128, K], B a shared tile read transposed (`b[s].T`: stored [N, K], K-major),
//                              A and B both bf16 or both f16, K a multiple of 16 (E0382).
//   tcgen05.ld F <- TILE       F a frag<tmem_acc, T, 128, n, 16>, TILE a tmem tile [128, n] of the same T
//   tcgen05.st TILE <- F       (32x32b.xn: thread t of the warpgroup moves lane t, columns c .. c+n-1).
// Facts: PTX ISA "Tensor Memory" (128 lanes x 512 columns of 32 bits per CTA, allocation units), and
// "tcgen05.mma" (kind::f16 shapes for cta_group::1).
#include "frontend/SemaImpl.h"

namespace cake {

namespace {
// A 2-D tmem tile: [rows, columns] of one bracket group.
bool isTmemTile(const Type *t) {
  return t && t->isTensor() && t->space == AddressSpace::TensorMemory && t->groups.size() == 1 && t->groups[0].size() == 2;
}
std::optional<int64_t> dimAt(const Type *t, size_t i) { return t->groups[0][i].value; }
} // namespace

bool Sema::analyzeTmemDecl(SharedStmt &s, SharedAllocation &alloc) {
  checkArch(archBit(Arch::SM100a), "tensor memory ('tmem')", s.nameRange);
  collectAttrs(s.attrs, {}, "tmem array " + quote(s.name));
  if (s.type->isError()) return false;
  auto bad = [&](const std::string &why) {
    diags_.report(DiagKind::TmemDecl, s.declaredType ? s.declaredType->range : s.nameRange, s.name, why);
    s.type = types_.error();
    return false;
  };
  if (!s.type->isTensor() || s.type->groups.empty() || s.type->groups.back().size() != 2)
    return bad("expected a type such as f32[S][128, N]: the innermost group is [128 lanes, N columns]");
  const Type *elem = s.type->element;
  if (!elem->isScalar() || !(scalarBits(elem->scalar) == 32 || elem->scalar == ScalarKind::BF16 || elem->scalar == ScalarKind::F16))
    return bad("the elements are f32, i32, u32 (one 32-bit column each) or bf16 / f16 (two per column), not " + typeToString(elem));
  const auto &inner = s.type->groups.back();
  if (inner[0].value != 128) return bad("the rows are the 128 lanes of tensor memory, not " + inner[0].text);
  auto elements = s.type->numElements();
  if (!elements) return bad("its dimensions are not constants");
  const int64_t perColumn = scalarBits(elem->scalar) == 32 ? 1 : 2;
  const int64_t cols = inner[1].value.value_or(0);
  if (cols < 1 || cols % perColumn != 0)
    return bad("a row of 16-bit elements has an even length, not " + std::to_string(cols));
  const int64_t columns = *elements / 128 / perColumn;
  int64_t allocated = 32;
  while (allocated < columns) allocated *= 2;
  if (allocated > 512)
    return bad(std::to_string(columns) + " columns exceed the 512 columns of tensor memory an SM has");
  // The slot for the base address (tcgen05.alloc writes 4 bytes).
  s.type = types_.tensor(elem, AddressSpace::TensorMemory, s.type->groups);
  alloc.bytes = 4;
  alloc.alignment = 16;
  alloc.tmemColumns = allocated;
  return true;
}

void Sema::checkTmemArrayOperand(OpStmt &s, Expr &e) {
  const Type *t = checkExpr(e, ExprMode::Operand);
  if (t->isError()) return;
  auto *n = dynCast<NameExpr>(&e);
  const bool whole = n && n->decl && n->decl->declKind == DeclKind::TensorMemory;
  if (!whole)
    diags_.report(DiagKind::BadOperand, e.range, s.name,
                  "expected the name of a tmem array (the whole allocation), found " + typeToString(t));
}

void Sema::checkTcgen05Mma(OpStmt &s, BinaryExpr &mul, const Type *d, const Type *a, const Type *b) {
  auto bad = [&](const Expr &at, const std::string &why) { diags_.report(DiagKind::Tcgen05Operand, at.range, "tcgen05.mma operand", why); };
  if (!isTmemTile(d)) {
    bad(*s.dsts[0], "the accumulator D is a tmem tile [128, N] such as acc[s], found " + typeToString(d));
    return;
  }
  if (d->elementScalar() != ScalarKind::F32) {
    bad(*s.dsts[0], "kind::f16 accumulates in f32 here, not " + std::string(scalarName(d->elementScalar())));
    return;
  }
  const int64_t m = dimAt(d, 0).value_or(0), n = dimAt(d, 1).value_or(0);
  if (m != 128) {
    bad(*s.dsts[0], "D has " + std::to_string(m) + " rows; tcgen05.mma with cta_group::1 is lowered for M = 128 (all lanes)");
    return;
  }
  if (n < 16 || n > 256 || n % 16 != 0) {
    bad(*s.dsts[0], "M = 128 needs N a multiple of 16 in 16..256, not " + std::to_string(n));
    return;
  }
  // B: a shared tile [K, N] written as b[s].T of a tile stored [N, K] (K-major).
  if (!b->isTensor() || b->space != AddressSpace::Shared || b->groups.size() != 1 || b->groups[0].size() != 2) {
    bad(*mul.rhs, "B is a shared tile stored [N, K] and read transposed (b[s].T), found " + typeToString(b));
    return;
  }
  if (!b->transposed) {
    bad(*mul.rhs, "B must be K-major: a tile stored [N, K] read as " + text(*mul.rhs) + ".T (MN-major B is not lowered)");
    return;
  }
  const int64_t kb = dimAt(b, 0).value_or(0), nb = dimAt(b, 1).value_or(0);
  if (nb != n || kb % 16 != 0 || kb < 16) {
    bad(*mul.rhs, "B is [K, N] = [" + std::to_string(kb) + ", " + std::to_string(nb) + "]; it needs N = " + std::to_string(n) +
                      " and K a multiple of 16");
    return;
  }
  // A: a shared [128, K] tile (K-major) or a 16-bit tmem tile [128, K].
  const bool aShared = a->isTensor() && a->space == AddressSpace::Shared && a->groups.size() == 1 && a->groups[0].size() == 2;
  if (!aShared && !isTmemTile(a)) {
    bad(*mul.lhs, "A is a shared tile [128, K] or a tmem tile [128, K], found " + typeToString(a));
    return;
  }
  if (a->transposed) {
    bad(*mul.lhs, "A must be K-major (a tile stored [M, K]); M-major A is not lowered");
    return;
  }
  if (dimAt(a, 0).value_or(0) != m || dimAt(a, 1).value_or(0) != kb) {
    bad(*mul.lhs, "A is " + typeToString(a) + "; it needs [" + std::to_string(m) + ", " + std::to_string(kb) + "] (M of D, K of B)");
    return;
  }
  ScalarKind ea = a->elementScalar(), eb = b->elementScalar();
  if (!(ea == ScalarKind::BF16 || ea == ScalarKind::F16) || ea != eb) {
    bad(mul, "kind::f16 multiplies bf16 by bf16 or f16 by f16, not " + std::string(scalarName(ea)) + " by " +
                 std::string(scalarName(eb)));
    return;
  }
}

void Sema::checkTcgen05Copy(OpStmt &s, Expr &fragExpr, const Type *frag, Expr &tileExpr, const Type *tile) {
  auto bad = [&](const Expr &at, const std::string &why) { diags_.report(DiagKind::Tcgen05Operand, at.range, s.name + " operand", why); };
  if (!frag->isFragment() || frag->frag != FragKind::TmemAcc) {
    bad(fragExpr, "the registers are a frag<tmem_acc, T, 128, n, 16>, found " + typeToString(frag));
    return;
  }
  if (!isTmemTile(tile)) {
    bad(tileExpr, "expected a tmem tile [128, n] such as acc[s][:, c +: n], found " + typeToString(tile));
    return;
  }
  if (dimAt(tile, 0).value_or(0) != 128 || dimAt(tile, 1).value_or(0) != frag->n) {
    bad(tileExpr, "the tile is " + typeToString(tile) + " but the fragment holds [128, " + std::to_string(frag->n) + "]");
    return;
  }
  if (tile->elementScalar() != frag->scalar)
    diags_.report(DiagKind::TypeMismatch, tileExpr.range, scalarName(frag->scalar), scalarName(tile->elementScalar()), s.name);
}

bool Sema::refuseTmemFragment(const Type *t, SourceRange r, std::string_view what) {
  if (!t || !t->isFragment() || t->frag != FragKind::TmemAcc) return false;
  diags_.report(DiagKind::TmemFragmentUnsupported, r, what)
      .hint("each thread holds one whole row: reduce it with an unrolled loop over its elements, F[j] for j in 0..N");
  return true;
}

} // namespace cake
