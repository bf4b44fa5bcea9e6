// The CAKE abstract syntax tree.
//
// The parser builds it; sema annotates it in place (Expr::type, NameExpr::decl, OpStmt::op, ...), after
// which it is the "typed AST" that every later stage (verify, cost, codegen) reads.  Every node carries the
// source range it was parsed from.  Nodes are owned by unique_ptr in their parent; kinds are a plain enum
// with isa/cast helpers (no RTTI needed).
//
// The tree mirrors grammar/cake.ebnf one-to-one, so the printer (ASTPrinter) can reproduce canonical
// source and parse(print(ast)) == ast (checked by the round-trip test, see ASTEquality.h).
#pragma once
#include "support/SourceManager.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cake {

struct Type;   // src/frontend/Types.h; owned by TypeContext
struct Decl;
struct OpInfo; // src/frontend/Ops.h

template <class T> using Ptr = std::unique_ptr<T>;

// ---------------------------------------------------------------- expressions
enum class ExprKind : uint8_t { IntLit, FloatLit, BoolLit, Name, Unary, Binary, Member, Index, Call, List };

enum class UnaryOp : uint8_t { Neg, Not, BitNot };
enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Eq, Ne, Lt, Le, Gt, Ge, LogAnd, LogOr
};

struct Expr {
  ExprKind kind;
  SourceRange range;
  const Type *type = nullptr;   // set by sema
  explicit Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Expr() = default;
};

struct IntLitExpr : Expr {
  uint64_t value;
  bool isBytes;   // written with a B suffix (128B): a byte count, e.g. swizzle modes
  IntLitExpr(SourceRange r, uint64_t v, bool bytes) : Expr(ExprKind::IntLit, r), value(v), isBytes(bytes) {}
};

struct FloatLitExpr : Expr {
  double value;
  std::string spelling;   // as written, so the printer reproduces it exactly
  FloatLitExpr(SourceRange r, double v, std::string s) : Expr(ExprKind::FloatLit, r), value(v), spelling(std::move(s)) {}
};

struct BoolLitExpr : Expr {
  bool value;
  BoolLitExpr(SourceRange r, bool v) : Expr(ExprKind::BoolLit, r), value(v) {}
};

struct NameExpr : Expr {
  std::string name;
  Decl *decl = nullptr;   // set by sema
  NameExpr(SourceRange r, std::string n) : Expr(ExprKind::Name, r), name(std::move(n)) {}
};

struct UnaryExpr : Expr {
  UnaryOp op;
  Ptr<Expr> operand;
  UnaryExpr(SourceRange r, UnaryOp o, Ptr<Expr> e) : Expr(ExprKind::Unary, r), op(o), operand(std::move(e)) {}
};

struct BinaryExpr : Expr {
  BinaryOp op;
  Ptr<Expr> lhs, rhs;
  BinaryExpr(SourceRange r, BinaryOp o, Ptr<Expr> l, Ptr<Expr> rr)
      : Expr(ExprKind::Binary, r), op(o), lhs(std::move(l)), rhs(std::move(rr)) {}
};

// base.member: builtins (tid.x, block.y, math.index) and transposed wgmma operands (b[s].T).
struct MemberExpr : Expr {
  Ptr<Expr> base;
  std::string member;
  SourceRange memberRange;
  MemberExpr(SourceRange r, Ptr<Expr> b, std::string m, SourceRange mr)
      : Expr(ExprKind::Member, r), base(std::move(b)), member(std::move(m)), memberRange(mr) {}
};

// One entry of an index list: a point `i`, a slice `i +: n` (n elements from i), or a whole dim `:`.
struct IndexItem {
  enum Kind : uint8_t { Point, Slice, Full } kind = Point;
  Ptr<Expr> start;    // Point, Slice
  Ptr<Expr> length;   // Slice
  SourceRange range;
};

// base[i, j +: 8] - one bracket group; a[s][r, c] is Index(Index(a, [s]), [r, c]).
struct IndexExpr : Expr {
  Ptr<Expr> base;
  std::vector<IndexItem> items;
  IndexExpr(SourceRange r, Ptr<Expr> b) : Expr(ExprKind::Index, r), base(std::move(b)) {}
};

// callee(args): intrinsics (ex2, shfl.xor, warp.sum, cdiv) and conversions named by a type (bf16(x)).
// The callee is the dotted name as written.
struct CallExpr : Expr {
  std::string callee;
  SourceRange calleeRange;
  std::vector<Ptr<Expr>> args;
  CallExpr(SourceRange r, std::string c, SourceRange cr) : Expr(ExprKind::Call, r), callee(std::move(c)), calleeRange(cr) {}
};

// [a, b, c] - only inside attribute arguments (tma(box=[BM, BK])).
struct ListExpr : Expr {
  std::vector<Ptr<Expr>> elements;
  explicit ListExpr(SourceRange r) : Expr(ExprKind::List, r) {}
};

template <class T> bool isa(const Expr *e);
template <> inline bool isa<IntLitExpr>(const Expr *e) { return e->kind == ExprKind::IntLit; }
template <> inline bool isa<FloatLitExpr>(const Expr *e) { return e->kind == ExprKind::FloatLit; }
template <> inline bool isa<BoolLitExpr>(const Expr *e) { return e->kind == ExprKind::BoolLit; }
template <> inline bool isa<NameExpr>(const Expr *e) { return e->kind == ExprKind::Name; }
template <> inline bool isa<UnaryExpr>(const Expr *e) { return e->kind == ExprKind::Unary; }
template <> inline bool isa<BinaryExpr>(const Expr *e) { return e->kind == ExprKind::Binary; }
template <> inline bool isa<MemberExpr>(const Expr *e) { return e->kind == ExprKind::Member; }
template <> inline bool isa<IndexExpr>(const Expr *e) { return e->kind == ExprKind::Index; }
template <> inline bool isa<CallExpr>(const Expr *e) { return e->kind == ExprKind::Call; }
template <> inline bool isa<ListExpr>(const Expr *e) { return e->kind == ExprKind::List; }
template <class T> T *cast(Expr *e) { return static_cast<T *>(e); }
template <class T> const T *cast(const Expr *e) { return static_cast<const T *>(e); }
template <class T> T *dynCast(Expr *e) { return e && isa<T>(e) ? static_cast<T *>(e) : nullptr; }
template <class T> const T *dynCast(const Expr *e) { return e && isa<T>(e) ? static_cast<const T *>(e) : nullptr; }

// ---------------------------------------------------------------- attributes
// name(arg, key=arg, ...) after params, declarations, roles and the kernel header.
struct AttrArg {
  std::string key;        // empty for positional arguments
  SourceRange keyRange;
  Ptr<Expr> value;
};
struct Attr {
  std::string name;
  SourceRange range;      // whole attribute
  SourceRange nameRange;
  std::vector<AttrArg> args;
};

// ---------------------------------------------------------------- types as written
// base_type { '[' dims ']' }: f32, bf16x8, bf16[M, K], bf16[S][BM, BK], frag<mma_c, f32, 16, 8, 16>[2][4].
struct TypeExpr {
  SourceRange range;
  std::string baseName;              // scalar/vector type name, or "frag"
  SourceRange baseRange;
  // frag<kind, dtype, M, N, K>
  std::string fragKind;
  SourceRange fragKindRange;
  std::string fragDtype;
  SourceRange fragDtypeRange;
  Ptr<Expr> fragM, fragN, fragK;
  std::vector<std::vector<Ptr<Expr>>> dimGroups;   // each bracket group, outermost first
  bool isFrag() const { return baseName == "frag"; }
};

// ---------------------------------------------------------------- statements
enum class StmtKind : uint8_t {
  Block, Let, Var, Shared, MBarrier, Barrier, Role, For, If, Elect, Return, Assign, Op, Call
};

struct Stmt {
  StmtKind kind;
  SourceRange range;
  explicit Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
  virtual ~Stmt() = default;
};

struct BlockStmt : Stmt {
  std::vector<Ptr<Stmt>> stmts;
  explicit BlockStmt(SourceRange r) : Stmt(StmtKind::Block, r) {}
};

// Declarations that introduce a name share this base, so NameExpr::decl can point at any of them.
enum class DeclKind : uint8_t {
  ShapeVar,     // M in A: bf16[M, K]: an implicit i32 kernel parameter taken from tensor shapes
  CtParam,      // <BM = 128>
  Param,        // kernel parameter
  Let, Var, LoopVar, Shared, MBarrier, Barrier, Role, Builtin,
  TensorMemory  // tmem NAME: T[..] (a SharedStmt with tensorMemory set)
};

struct Decl {
  DeclKind declKind;
  std::string name;
  SourceRange nameRange;
  const Type *type = nullptr;   // set by sema
  Decl(DeclKind k, std::string n, SourceRange nr) : declKind(k), name(std::move(n)), nameRange(nr) {}
  virtual ~Decl() = default;
};

// Orders declarations by where they are declared (file, offset; then name).  Containers keyed by Decl
// whose iteration order reaches an output (solver queries and their counterexamples, diagnostics) use it,
// so that the output does not depend on heap addresses.
struct DeclSourceOrder {
  bool operator()(const Decl *a, const Decl *b) const {
    if (a == b || !a || !b) return !a && b;
    const SourceLoc &x = a->nameRange.begin, &y = b->nameRange.begin;
    if (x.file != y.file) return x.file < y.file;
    if (x.offset != y.offset) return x.offset < y.offset;
    if (a->name != b->name) return a->name < b->name;
    return std::less<const Decl *>()(a, b);   // two declarations of one name at one place: none in the AST
  }
};

template <class T> using DeclMap = std::map<const Decl *, T, DeclSourceOrder>;

struct LetStmt : Stmt, Decl {
  Ptr<TypeExpr> declaredType;   // optional
  Ptr<Expr> init;
  LetStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::Let, r), Decl(DeclKind::Let, std::move(n), nr) {}
};

struct VarStmt : Stmt, Decl {
  Ptr<TypeExpr> declaredType;
  Ptr<Expr> init;               // optional
  VarStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::Var, r), Decl(DeclKind::Var, std::move(n), nr) {}
};

// `shared NAME: T;` and `tmem NAME: T;` (tensorMemory: Blackwell tensor memory, whose base address the
// allocating tcgen05.alloc writes into a 4-byte shared-memory slot that this declaration owns).
struct SharedStmt : Stmt, Decl {
  Ptr<TypeExpr> declaredType;
  std::vector<Attr> attrs;      // swizzle(128B) align(1024)
  bool tensorMemory = false;    // declared with `tmem`
  SharedStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::Shared, r), Decl(DeclKind::Shared, std::move(n), nr) {}
};

struct MBarrierStmt : Stmt, Decl {
  Ptr<Expr> count;              // optional array size: mbarrier full[S]
  std::vector<Attr> attrs;      // arrivals(n)
  MBarrierStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::MBarrier, r), Decl(DeclKind::MBarrier, std::move(n), nr) {}
};

struct BarrierStmt : Stmt, Decl {
  Ptr<Expr> count;              // optional array size: barrier epi[2] (ids id .. id+count-1)
  std::vector<Attr> attrs;      // id(n) threads(n)
  BarrierStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::Barrier, r), Decl(DeclKind::Barrier, std::move(n), nr) {}
};

enum class RoleUnit : uint8_t { Warp, Warpgroup };

struct RoleStmt : Stmt, Decl {
  Ptr<Expr> instances;          // optional: role math[2]
  RoleUnit unit = RoleUnit::Warp;
  bool pluralSpelling = false;  // warps(..)/warpgroups(..) as written
  Ptr<Expr> first;              // warpgroup(first) or warpgroups(first..last)
  Ptr<Expr> last;               // optional, exclusive
  std::vector<Attr> attrs;      // regs(n)
  Ptr<BlockStmt> body;
  RoleStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::Role, r), Decl(DeclKind::Role, std::move(n), nr) {}
};

constexpr int64_t kMaxUnrollFactor = 64;   // unroll(N): N in 1..64 (E0349)

struct ForStmt : Stmt, Decl {   // the Decl is the loop variable
  Ptr<Expr> lower, upper;       // [lower, upper)
  Ptr<Expr> step;               // optional
  bool unroll = false;          // `unroll`: full unrolling
  Ptr<Expr> unrollFactor;       // `unroll(N)`: partial unrolling by N (then `unroll` stays false)
  int64_t unrollCount = 1;      // set by sema: N of unroll(N), 1 otherwise
  Ptr<BlockStmt> body;
  ForStmt(SourceRange r, std::string n, SourceRange nr) : Stmt(StmtKind::For, r), Decl(DeclKind::LoopVar, std::move(n), nr) {}
};

struct IfStmt : Stmt {
  Ptr<Expr> cond;
  Ptr<BlockStmt> thenBody;
  Ptr<Stmt> elseBody;           // optional: a BlockStmt or an IfStmt (else if)
  explicit IfStmt(SourceRange r) : Stmt(StmtKind::If, r) {}
};

struct ElectStmt : Stmt {
  Ptr<BlockStmt> body;
  explicit ElectStmt(SourceRange r) : Stmt(StmtKind::Elect, r) {}
};

struct ReturnStmt : Stmt {
  Ptr<Expr> value;              // `return EXPR;` - only in an fn with a result type (removed by inlining)
  explicit ReturnStmt(SourceRange r) : Stmt(StmtKind::Return, r) {}
};

enum class AssignOp : uint8_t { Set, Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr };

struct AssignStmt : Stmt {
  Ptr<Expr> target;
  AssignOp op = AssignOp::Set;
  Ptr<Expr> value;
  explicit AssignStmt(SourceRange r) : Stmt(StmtKind::Assign, r) {}
};

// A clause after an operation: signal(full[s]), parity(p), multicast(mask), expect_tx(bytes), cta(rank).
struct Clause {
  std::string name;
  SourceRange range;
  SourceRange nameRange;
  std::vector<Ptr<Expr>> args;
};

// OP_NAME dsts [<- | +=] srcs clauses;   e.g.  tma.load a[s] <- A[m, k] signal(full[s]);
// Operands before the arrow are `dsts` (or the only operands when there is no arrow).
enum class OpArrow : uint8_t { None, Move, Accumulate };   // none, '<-', '+='

struct OpStmt : Stmt {
  std::string name;             // dotted, as written
  SourceRange nameRange;
  const OpInfo *op = nullptr;   // from Ops.def; set by the parser (it recognises op names through the table)
  std::vector<Ptr<Expr>> dsts;
  OpArrow arrow = OpArrow::None;
  std::vector<Ptr<Expr>> srcs;
  std::vector<Clause> clauses;
  explicit OpStmt(SourceRange r) : Stmt(StmtKind::Op, r) {}
};

// `f(args);` - a call of an fn as a statement.  Only the parser makes these; inlining (Inline.h) replaces
// every one before sema, so no later stage sees them.
struct CallStmt : Stmt {
  Ptr<CallExpr> call;
  explicit CallStmt(SourceRange r) : Stmt(StmtKind::Call, r) {}
};

template <class T> bool isa(const Stmt *s);
#define CAKE_STMT_ISA(T, K) template <> inline bool isa<T>(const Stmt *s) { return s->kind == StmtKind::K; }
CAKE_STMT_ISA(BlockStmt, Block)
CAKE_STMT_ISA(LetStmt, Let)
CAKE_STMT_ISA(VarStmt, Var)
CAKE_STMT_ISA(SharedStmt, Shared)
CAKE_STMT_ISA(MBarrierStmt, MBarrier)
CAKE_STMT_ISA(BarrierStmt, Barrier)
CAKE_STMT_ISA(RoleStmt, Role)
CAKE_STMT_ISA(ForStmt, For)
CAKE_STMT_ISA(IfStmt, If)
CAKE_STMT_ISA(ElectStmt, Elect)
CAKE_STMT_ISA(ReturnStmt, Return)
CAKE_STMT_ISA(AssignStmt, Assign)
CAKE_STMT_ISA(OpStmt, Op)
CAKE_STMT_ISA(CallStmt, Call)
#undef CAKE_STMT_ISA
template <class T> T *cast(Stmt *s) { return static_cast<T *>(s); }
template <class T> const T *cast(const Stmt *s) { return static_cast<const T *>(s); }
template <class T> T *dynCast(Stmt *s) { return s && isa<T>(s) ? static_cast<T *>(s) : nullptr; }
template <class T> const T *dynCast(const Stmt *s) { return s && isa<T>(s) ? static_cast<const T *>(s) : nullptr; }

// ---------------------------------------------------------------- kernels and modules
// <BM = 128> is an integer parameter; <T: type = bf16> a type parameter, whose default is a NameExpr naming
// a scalar type (or an earlier type parameter).  Sema resolves a type parameter to `typeValue` and replaces
// every use of it by that name before typing the kernel (SemaTypeParams.cpp), so no later stage sees one.
struct CtParam : Decl {
  Ptr<Expr> defaultValue;
  bool isType = false;            // declared `NAME: type = ...`
  SourceRange typeKeywordRange;   // the word `type`
  std::optional<int64_t> value;   // integer parameters: after defaults and -D overrides are applied by sema
  std::string typeValue;          // type parameters: the scalar type name after the default and -D
  CtParam(std::string n, SourceRange nr) : Decl(DeclKind::CtParam, std::move(n), nr) {}
};

struct Param : Decl {
  Ptr<TypeExpr> declaredType;
  std::vector<Attr> attrs;        // tma(box=[..], swizzle=..) stride(..) align(..)
  SourceRange range;
  Param(std::string n, SourceRange nr) : Decl(DeclKind::Param, std::move(n), nr) {}
};

// M, N, K: declared implicitly by their first use as a dimension of a tensor parameter.
struct ShapeVar : Decl {
  ShapeVar(std::string n, SourceRange nr) : Decl(DeclKind::ShapeVar, std::move(n), nr) {}
};

struct Kernel {
  std::string name;
  SourceRange range;
  SourceRange nameRange;
  std::vector<Ptr<CtParam>> ctParams;
  std::vector<Ptr<Param>> params;
  std::vector<Attr> attrs;                 // requires(..) grid(..) threads(..) cluster(..)
  Ptr<BlockStmt> body;
  // Filled by sema:
  std::vector<Ptr<ShapeVar>> shapeVars;    // in order of first appearance
};

// fn parameter: `p: T` (a value: the argument is evaluated once and bound like a let), `var p: T` (the
// argument is a var, or an element of one, that the body reads and assigns in place) or `shared p: T` (the
// argument is a shared tile, or a slice of a ring, used in place).
enum class FnParamMode : uint8_t { Value, Var, Shared };

struct FnParam {
  std::string name;
  SourceRange nameRange;
  SourceRange range;
  FnParamMode mode = FnParamMode::Value;
  Ptr<TypeExpr> declaredType;
};

// fn NAME(params) [-> TYPE] { body } at file scope.  Always inlined (Inline.h); sema never sees one.
struct FnDecl {
  std::string name;
  SourceRange range;
  SourceRange nameRange;
  std::vector<FnParam> params;
  Ptr<TypeExpr> resultType;                // optional
  Ptr<BlockStmt> body;
};

// A var or shared argument of an inlined call, which the body uses in place (no copy).  Inlining records
// one per such argument so that sema can check the argument against the parameter's declared type at the
// call site: sema runs the check just before the statement `before` (the first statement of the call's
// expansion, in the caller's block).
struct InlineArgCheck {
  const Stmt *before = nullptr;
  Ptr<Expr> argument;                      // a copy of the argument as written at the call site
  Ptr<TypeExpr> paramType;                 // a copy of the parameter's type
  FnParamMode mode = FnParamMode::Var;
  std::string fn, param;
  SourceRange paramRange;
};

struct Module {
  std::string target;                      // as written, e.g. "sm_90a"
  SourceRange targetRange;
  std::vector<Ptr<FnDecl>> fns;            // in source order
  std::vector<Ptr<Kernel>> kernels;
  SourceRange range;
  // Filled by inlining (Inline.h): set once every call of an fn is expanded.
  bool fnsInlined = false;
  std::vector<InlineArgCheck> inlineArgChecks;
};

} // namespace cake
