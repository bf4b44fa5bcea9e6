// Sema's private interface: the one analysis object whose methods are split by concept over
//   Sema.cpp        driver: target, then each kernel (header, body, roles, layout), -D bookkeeping
//   SemaNames.cpp   declarations, scopes, name resolution, builtins, "did you mean" suggestions
//   SemaTypes.cpp   type expressions and expression typing (literals adapt, conversions, intrinsics)
//   SemaKernel.cpp  ct params and -D, params and shape vars, param/kernel attributes, shared/barrier
//                   declarations and the shared-memory layout
//   SemaStmts.cpp   statement walk (let/var/for/if/elect/assign) and the scope/context discipline
//   SemaRoles.cpp   roles: placement, warp ranges, instances, register budgets, overlap
//   SemaOps.cpp     every operation of Ops.def: operands, clauses, address spaces, shapes, arch
//   SemaAtomics.cpp atom.* calls and red.* operations: targets, value types, arch (Atomics.h table)
//   SemaTcgen05.cpp tmem declarations and the typing rules of the tcgen05 operations (Blackwell)
// Only these files include this header.
#pragma once
#include <memory>

#include "frontend/Operators.h"
#include "support/EditDistance.h"
#include "frontend/Atomics.h"
#include "frontend/ConstEval.h"
#include "frontend/Intrinsics.h"
#include "frontend/Ops.h"
#include "frontend/Scope.h"
#include "frontend/Sema.h"

#include <initializer_list>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

// Where a statement sits; decides which declarations and constructs are allowed.
struct StmtContext {
  unsigned depth = 0;                  // 0 = directly in the kernel body
  const RoleStmt *role = nullptr;      // innermost enclosing role (roles do not nest)
  bool inElect = false;
};

// How an expression is used.  Value: it must produce a value (arithmetic, initialisers, conditions).
// Operand: operation operands and bases of index/member expressions may also be tiles, barriers, roles.
enum class ExprMode : uint8_t { Value, Operand };

// What a type expression declares; decides the allowed element types, address space and dims.
enum class TypeUse : uint8_t { Param, Shared, Register };

class Sema {
public:
  Sema(Module &m, const SemaOptions &opts, DiagnosticEngine &diags, SemaResult &result);
  void run();

  // ---------------------------------------------------------------- Sema.cpp
  void analyzeKernel(Kernel &k);

  // ---------------------------------------------------------------- SemaNames.cpp
  // Declares `d` in the current scope; reports E0302 (with a note at the previous declaration) for a
  // duplicate in the same scope, a local shadowing a kernel-level name, or a reserved name.
  bool declare(Decl &d);
  // Resolves a name used in an expression; reports E0301 with a "did you mean" hint when not found.
  Decl *resolve(NameExpr &n);
  Decl *lookup(const std::string &name) const;
  bool isReservedName(std::string_view name, std::string *why) const;
  std::string closestName(std::string_view name, const std::vector<std::string> &candidates) const;
  std::string describeDecl(const Decl &d) const;   // "let binding 'x'", "parameter 'A'"

  // ---------------------------------------------------------------- SemaTypes.cpp
  const Type *resolveType(TypeExpr &te, TypeUse use);
  const Type *checkExpr(Expr &e, ExprMode mode = ExprMode::Value);
  // Types `e` as a value of type `expected` (untyped constants adapt); reports E0304 on mismatch.
  // `context` names the construct for the message, e.g. "=" or "initialiser".
  bool checkExprAs(Expr &e, const Type *expected, std::string_view context);
  // Gives untyped constants in `e` the concrete type `to` (recursively); checks the value fits.
  void adaptUntyped(Expr &e, const Type *to);
  // An untyped constant becomes i32 (i64 if it does not fit) or f32; typed values are unchanged.
  const Type *concretize(Expr &e);
  bool checkInteger(Expr &e, std::string_view what);      // E0312
  bool checkPred(Expr &e, std::string_view what);         // E0311
  // Compile-time value of an (already typed) integer expression; reports E0310 / E0324 / E0327.
  std::optional<int64_t> evalConst(Expr &e, std::string_view what);
  // checkExpr + checkInteger + evalConst.
  std::optional<int64_t> constInt(Expr &e, std::string_view what);
  // E0402 for f8 types below sm_89.
  void checkScalarArch(ScalarKind k, SourceRange r);
  void checkArch(ArchSet archs, std::string_view feature, SourceRange r);
  std::string text(const Expr &e) const;                 // the expression's source text
  std::string text(SourceRange r) const;
  const Type *binaryResultType(BinaryOp op, const Type *lt, const Type *rt, Expr *lhs, Expr *rhs, SourceRange r,
                               std::string_view spelling);

  // ---------------------------------------------------------------- SemaKernel.cpp
  void analyzeTarget();
  void analyzeCtParams(Kernel &k);
  void analyzeParams(Kernel &k);
  void analyzeParamAttrs(Param &p);
  void analyzeKernelAttrs(Kernel &k);
  void analyzeShared(SharedStmt &s, const StmtContext &ctx);
  void analyzeMBarrier(MBarrierStmt &s, const StmtContext &ctx);
  void analyzeBarrier(BarrierStmt &s, const StmtContext &ctx);
  void layoutSharedMemory(Kernel &k);
  void checkUnknownDefines();

  // ---------------------------------------------------------------- SemaTcgen05.cpp
  // `tmem NAME: T[..][128, N];` (E0380): shape, element, columns; fills alloc (a 4-byte slot, tmemColumns).
  bool analyzeTmemDecl(SharedStmt &s, SharedAllocation &alloc);
  // tcgen05.alloc / tcgen05.dealloc TMEM: the whole array of a tmem declaration.
  void checkTmemArrayOperand(OpStmt &s, Expr &e);
  // tcgen05.mma D += A * B with typed operands (E0382).
  void checkTcgen05Mma(OpStmt &s, BinaryExpr &mul, const Type *d, const Type *a, const Type *b);
  // tcgen05.ld F <- TILE / tcgen05.st TILE <- F with typed operands (E0382).
  void checkTcgen05Copy(OpStmt &s, Expr &fragExpr, const Type *frag, Expr &tileExpr, const Type *tile);
  // E0383 for a warp-level fragment construct applied to a tmem_acc fragment; true when reported.
  bool refuseTmemFragment(const Type *t, SourceRange r, std::string_view what);

  // ---------------------------------------------------------------- SemaTypeParams.cpp
  // <T: type = bf16>: the default and -D NAME=TYPE (E0370, E0372) -> CtParam::typeValue, typeParams_.
  void analyzeTypeParam(CtParam &ct);
  std::optional<std::string> typeParamValue(const std::string &name, bool allowParams, std::string *why);
  // Rewrites every use of a type parameter to its type name and sizeof(TYPE) to a literal.
  void substituteTypeParams(Kernel &k);
  void substituteTypeParams(Ptr<Expr> &e);
  bool isBrokenTypeParam(const std::string &name) const;   // declared, but its value is in error
  const Type *badSizeof(CallExpr &c);                       // E0374
  // Reports E0315 for attributes not in `allowed` and E0411 for duplicates; returns name -> attr.
  std::map<std::string, Attr *> collectAttrs(std::vector<Attr> &attrs, std::initializer_list<std::string_view> allowed,
                                             std::string_view onWhat);
  bool checkDeclPlacement(const Decl &d, SourceRange r, std::string_view what, const StmtContext &ctx);

  // ---------------------------------------------------------------- SemaStmts.cpp
  void analyzeBlock(BlockStmt &b, const StmtContext &ctx, bool newScope = true);
  void analyzeStmt(Stmt &s, const StmtContext &ctx);
  void analyzeLet(LetStmt &s);
  void analyzeVar(VarStmt &s);
  void analyzeFor(ForStmt &s, const StmtContext &ctx);
  void analyzeIf(IfStmt &s, const StmtContext &ctx);
  void analyzeAssign(AssignStmt &s);
  // E0305 unless `target` denotes writable storage.
  bool checkAssignable(Expr &target);
  // The declaration an lvalue/operand is rooted at: a[s][r, c] -> a.
  Decl *rootDecl(Expr &e) const;

  // ---------------------------------------------------------------- SemaFragments.cpp
  // The fragment whose layout an element-wise result takes (E0334 when the layouts differ), or null.
  const Type *layoutCarrier(const Type *a, const Type *b, SourceRange r, std::string_view spelling);
  const Type *fragmentBinary(BinaryOp op, const Type *lt, const Type *rt, Expr *lhs, Expr *rhs, SourceRange r,
                             std::string_view spelling);
  const Type *fragmentCoordinate(MemberExpr &m, const Type *bt);           // F.row, F.col
  const Type *fragmentElement(IndexExpr &ix, const Type *bt);              // acc[i]
  const Type *fragmentGather(IndexExpr &ix, const Type *bt, const Type *carrier);   // bias[n0 + acc.col]
  const Type *fragmentReduction(CallExpr &c, const Type *t, bool column); // rowmax(F), colsum(F) ...
  const Type *reducedVectorType(const Type *acc, bool column);              // the row / column vector of acc's family
  const Type *liftedIntrinsic(CallExpr &c, const IntrinsicInfo &intr);     // ex2(acc), select(m, acc, x) ...
  // The intrinsic's typing rule applied to its (already typed) arguments (SemaTypes.cpp).
  const Type *typeIntrinsicRule(CallExpr &c, const IntrinsicInfo &intr);

  // ---------------------------------------------------------------- SemaRoles.cpp
  void analyzeRole(RoleStmt &r, const StmtContext &ctx);
  void checkRoles(Kernel &k);
  const RoleInfo *currentRoleInfo(const StmtContext &ctx) const;

  // ---------------------------------------------------------------- SemaInline.cpp
  void indexInlineArgChecks();
  void checkInlineArgs(const Stmt &before);   // E0347, E0348
  void checkUnrollFactor(ForStmt &s);          // E0349

  // ---------------------------------------------------------------- SemaOps.cpp
  void analyzeOp(OpStmt &s, const StmtContext &ctx);

  // ---------------------------------------------------------------- SemaAtomics.cpp
  // The element type an atomic `op` updates at `target` (a typed global/shared element or 2-slice), or
  // null after E0342 / E0340 / E0341.
  const Type *checkAtomicTarget(Expr &target, AtomicOp op, std::string_view spelling);
  bool checkAtomicValue(Expr &value, const Type *elem, std::string_view spelling);   // E0304
  const Type *typeAtomicCall(CallExpr &c, const IntrinsicInfo &intr);
  void analyzeReduction(OpStmt &s, AtomicOp op);

  // ---------------------------------------------------------------- state
  Module &module_;
  const SemaOptions &opts_;
  DiagnosticEngine &diags_;
  SemaResult &result_;
  TypeContext &types_;
  const BuiltinTable &builtins_;
  std::optional<Arch> arch_;            // nullopt when the target is unknown: arch gating is skipped
  ConstEvaluator constEval_;

  // Per kernel:
  Kernel *kernel_ = nullptr;
  KernelInfo *info_ = nullptr;
  Scope *scope_ = nullptr;              // innermost scope
  Scope *kernelScope_ = nullptr;        // ct params, shape vars, params
  Scope *bodyScope_ = nullptr;          // the kernel body block
  const RoleStmt *currentRole_ = nullptr;   // for ROLE.index checks inside expressions
  bool allowTranspose_ = false;         // `.T` is accepted (wgmma operands)
  bool allowTiles_ = false;             // ':' and outer slices are accepted (operation operands)
  std::map<const RoleStmt *, size_t> roleIndex_;   // RoleStmt -> info_->roles index
  std::vector<const MBarrierStmt *> mbarrierDecls_;
  std::set<const Decl *> referenced_;   // declarations some name of the current kernel resolved to
  void warnUnusedDeclarations(const KernelInfo &info);   // E0375 (SemaKernel.cpp)
  std::map<std::string, std::string> typeParams_;   // type parameter -> scalar type name ("" when in error)
  std::multimap<const Stmt *, const InlineArgCheck *> argChecks_;   // by InlineArgCheck::before
};

// Pushes a scope for the lifetime of the guard.
class ScopeGuard {
public:
  // The scope lives on the heap: the Sema object outlives this guard's stack frame only while the guard
  // restores the previous scope, and a heap object makes that lifetime explicit to the compiler.
  ScopeGuard(Sema &s, ScopeKind kind)
      : sema_(s), saved_(s.scope_), scope_(std::make_unique<Scope>(kind, s.scope_)) { s.scope_ = scope_.get(); }
  ~ScopeGuard() { sema_.scope_ = saved_; }
  Scope &scope() { return *scope_; }
  ScopeGuard(const ScopeGuard &) = delete;
  ScopeGuard &operator=(const ScopeGuard &) = delete;

private:
  Sema &sema_;
  Scope *saved_;
  std::unique_ptr<Scope> scope_;
};

std::string quote(std::string_view s);   // 'name'
// Can an untyped constant of kind `u` (UntypedInt / UntypedFloat) become `t`?
bool untypedFits(const Type *u, const Type *t);

} // namespace cake
