// KernelLowering: the state and the per-construct lowering functions for one kernel.
//
// One object lowers one kernel into a PtxWriter.  Its methods are split over files named by construct
// (LowerArith.cpp, LowerIntrinsics.cpp, LowerFragments.cpp, LowerMemory.cpp, LowerControl.cpp, LowerShuffle.cpp,
// LowerBarrier.cpp, LowerCpAsync.cpp, LowerLdmatrix.cpp, LowerMma.cpp, LowerRoles.cpp); KernelLowering.cpp
// holds the kernel frame (parameters, shared-memory layout, statement dispatch, let/var/assign).
//
// Environment: every Decl the body can name maps to a Binding - a Value (let, var, loop variable, scalar
// and shape-variable parameters), a register array (var acc: f32[4][8], fragment arrays), a global tensor
// (base address, dims, byte strides), a shared array (offset in the dynamic buffer), an mbarrier array,
// a named barrier or a role.  Loops marked unroll rebind their variable to a constant per copy, so indices
// into register arrays fold to constants and pick registers directly.
//
// Hopper constructs (sm_90 / sm_90a) lower in LowerTma.cpp, LowerWgmma.cpp, LowerMbarrier.cpp,
// LowerCluster.cpp, LowerStmatrix.cpp, SharedTile.cpp and LowerRoles.cpp (setmaxnreg, elect.sync): docs/hopper.md.
//
// Errors: user-visible problems (forms not lowered yet, non-constant register indices, ...) are reported
// through the DiagnosticEngine and lowering continues with a placeholder value so that several problems
// are reported in one run; the caller discards the PTX when any error was reported.
#pragma once
#include "codegen/CodeGen.h"
#include "codegen/PtxWriter.h"
#include "frontend/SharedLayout.h"
#include "codegen/Value.h"
#include "frontend/AST.h"
#include "frontend/Atomics.h"
#include "frontend/Builtins.h"
#include "frontend/KernelInfo.h"
#include "support/Diagnostics.h"

#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cake::codegen {

// A register array: elements row-major over all bracket groups (acc[i][j] and acc[i, j] alike).
struct RegArray {
  ValueType elem;
  std::vector<std::vector<int64_t>> groups;
  std::vector<Value> elems;
};

// A global tensor parameter.
struct GlobalTensor {
  Scalar elem = Scalar::F32;
  std::string base;                 // .b64 register with the global-window address
  std::vector<Value> dims;          // i32 values (constant or shape-variable registers)
  std::vector<Value> strideBytes;   // i64 values
  // Per dim, where strideBytes[k] is a 32-bit value times a constant (row-major rank-2 rows: N * elem
  // bytes, or a 32-bit stride(..) argument): that value and the constant, so that c * stride for a constant
  // c is one mad.wide.s32 (LowerMemory.cpp); an empty value elsewhere.
  std::vector<std::pair<Value, int64_t>> stride32;
  bool readOnly = false;            // never written by the kernel: loads may use ld.global.nc
  size_t param = 0;                 // index in the manifest's params
};

// A shared array in the dynamic buffer.
struct SharedArray {
  Scalar elem = Scalar::F32;
  int64_t offset = 0;                       // bytes from cake_smem
  std::vector<std::vector<int64_t>> groups;
  int swizzleBytes = 0;                     // 0, 32, 64 or 128
  int64_t tmemColumns = 0;                  // a `tmem` array: its allocated columns; offset is its address slot
};

struct MBarrierArray {
  int64_t offset = 0;   // bytes from cake_smem; 8 bytes per barrier
  int64_t count = 1;
  int64_t arrivals = 1;
};

struct NamedBarrier {
  int64_t id = 0;         // the first id of an array
  int64_t threads = 0;
  int64_t count = 1;      // barrier NAME[count]
};

struct RoleRange {
  int64_t firstWarp = 0;
  int64_t warpsPerInstance = 1;
  int64_t instances = 1;
};

using Binding = std::variant<Value, RegArray, GlobalTensor, SharedArray, MBarrierArray, NamedBarrier, RoleRange>;

// A shared tile used as a whole (TMA destination/source, wgmma operand): the array it views, the
// address of its first element without the swizzle applied (TMA and wgmma swizzle by address bits), its
// shape (the dims left after points; slices keep their length) and whether it is read transposed (.T).
struct SharedTile {
  const SharedArray *array = nullptr;
  std::string baseReg;          // .b32 register (or the shared base) ...
  int64_t offset = 0;           // ... plus this many bytes
  std::vector<int64_t> dims;    // tile shape, outermost first (without .T applied)
  int64_t rowBytes = 0;         // byte stride between consecutive rows of the innermost two dims
  bool transposed = false;      // written T.T (wgmma B operand stored [N, K])
  ColumnBlocks layout;          // the array's innermost two dims (column blocks when rows exceed the span)
  std::optional<int64_t> colPhase;   // first column of the tile modulo the column-block width, when known
  int64_t bytes() const;
};

// A tile of a `tmem` array used as a whole (tcgen05 operand): its tensor-memory address (.b32: the
// allocation's base plus its first column), lanes and columns (elements of the array's type).
struct TmemTile {
  const SharedArray *array = nullptr;
  std::string addr;
  int64_t rows = 0, cols = 0;
  Scalar elem = Scalar::F32;
};

// tcgen05 encodings (LowerTcgen05.cpp): the 32-bit instruction descriptor of a dense kind::f16 MMA with f32
// accumulation and K-major A and B (ab: bf16 or f16), and the high word of an SM100 shared-memory descriptor
// from the high word of the wgmma descriptor of the same layout (adds the descriptor version, bit 46).
uint32_t tcgen05InstrDescriptorF16(Scalar ab, int64_t m, int64_t n);
uint32_t tcgen05DescriptorHiWord(uint32_t wgmmaHiWord);

// A memory operand: the address of one element (or vector) of a global or shared tensor.
struct Address {
  std::string base;   // register (.b64 for global, .b32 for shared) or symbol
  int64_t offset = 0;
  std::string str() const;
};

struct MemRef {
  bool shared = false;
  Scalar elem = Scalar::F32;
  unsigned lanes = 1;   // slice length; 1 = one element
  Address addr;
  const GlobalTensor *global = nullptr;
};

// An accumulator fragment's lane layout (AccumulatorLayout.cpp): the calling lane's first element (row,
// column) relative to the tile origin, and its element pairs (pair p: f32 registers 2p, 2p+1, or the packed
// 16-bit register p) at (row + rowOff, col + colOff .. colOff + 1).
struct AccumulatorLayout {
  Value row, col;
  struct Pair {
    int64_t rowOff = 0, colOff = 0;
  };
  std::vector<Pair> pairs;
};

// A resolved place a value can be assigned to.
struct LValue {
  enum Kind { None, Regs, VectorElement, Memory } kind = None;
  Value *target = nullptr;     // Regs: the register value (var or register-array element); VectorElement: the vector
  unsigned element = 0;        // VectorElement
  MemRef mem;                  // Memory
};

// True when the integer expression is a multiple of k for every value of its names (LowerWgmma.cpp).
bool provablyMultipleOf(const Expr &e, int64_t k, unsigned depth = 0);

// True when an index expression indexes a tensor with fragments: a gather (LowerFragments.cpp).
bool isGather(const IndexExpr &ix);

class KernelLowering {
public:
  KernelLowering(const Kernel &kernel, const KernelInfo &info, Arch arch, PtxWriter &out, DiagnosticEngine &diags,
                 KernelManifest &manifest);
  void lower();

  // ---- values (KernelLowering.cpp)
  Value lowerExpr(const Expr &e);
  // The value as the given type: adapts untyped constants, leaves typed values alone.
  Value adapt(const Value &v, const ValueType &t);
  // A register holding the value (constants are moved into a fresh register).
  std::string reg(const Value &v);
  // A register or an immediate (only where PTX accepts immediates).
  std::string operand(const Value &v);
  Value freshValue(const ValueType &t);
  void copyInto(const Value &src, Value &dst);
  std::optional<int64_t> constInt(const Value &v) const;
  std::optional<int64_t> constIntExpr(const Expr &e);
  Value placeholder(const ValueType &t);

  // ---- arithmetic (LowerArith.cpp)
  Value lowerUnary(const UnaryExpr &e);
  Value unaryOp(UnaryOp op, const Value &a, SourceRange where);
  Value lowerBinary(const BinaryExpr &e);
  Value binaryOp(BinaryOp op, Value a, Value b, SourceRange where);
  std::optional<Value> divRemByConstant(BinaryOp op, const Value &a, int64_t divisor, Scalar s);
  std::optional<Value> divRemByConstant64(BinaryOp op, const Value &a, int64_t divisor);
  std::string divRemPowerOfTwo(BinaryOp op, const std::string &n, unsigned log2, unsigned bits, bool plain);
  Value divRemResult(BinaryOp op, const Value &a, int64_t divisor, Scalar s, const std::string &r);
  std::optional<Value> reassociateAffine(BinaryOp op, const Value &a, const Value &b, Scalar s, SourceRange where);
  bool knownNonNegative(const Value &v) const;
  std::optional<int64_t> lowerBoundOf(const Value &v) const;
  std::optional<int64_t> upperBoundOf(const Value &v) const;
  std::optional<int64_t> resultUpperBound(BinaryOp op, const Value &a, const Value &b) const;
  std::optional<bool> decideComparison(BinaryOp op, const Value &a, const Value &b) const;
  std::optional<int64_t> resultLowerBound(BinaryOp op, const Value &a, const Value &b) const;
  Value convert(const Value &v, const ValueType &to, SourceRange where);
  Value lowerConversionCall(const CallExpr &e, const ValueType &to);
  Value vectorElement(const Value &v, unsigned index);
  // truncate: a tf32 fragment element takes the f32 bits as they are (tf32.rz: the tensor core reads only the
  // tf32 bits, which is rounding toward zero), where otherwise it is rounded to nearest
  void setVectorElement(Value &vec, unsigned index, const Value &element, bool truncate = false);
  Value tf32TowardZero(const Value &x, SourceRange where);                  // tf32.rz(x) as a value
  // dst = f rounded to tf32: to nearest, ties even (a tf32 element write), or toward zero (tf32.rz)
  void roundToTf32(const std::string &dst, const std::string &f, bool towardZero = false);
  Value packVector(const ValueType &t, const std::vector<Value> &elements);
  std::vector<Value> unpackVector(const Value &v);
  Value selectValue(const Value &p, const Value &a, const Value &b);
  Value toPred(const Value &v);

  // ---- intrinsics (LowerIntrinsics.cpp)
  Value lowerCall(const CallExpr &e);
  Value intrinsicOnValues(const std::string &name, const std::vector<Value> &args, SourceRange where);
  Value floatUnaryIntrinsic(std::string_view name, const Value &x, SourceRange where);

  // ---- fragments as values (LowerFragments.cpp)
  ValueType liftedType(const ValueType &carrier, Scalar elem);
  std::vector<Value> broadcastElements(const Value &v, const ValueType &carrier);
  Value fragmentBinaryOp(BinaryOp op, const Value &a, const Value &b, SourceRange where);
  Value fragmentUnaryOp(UnaryOp op, const Value &a, SourceRange where);
  Value fragmentIntrinsic(const std::string &name, const std::vector<Value> &args, SourceRange where);
  Value fragmentConvert(const Value &v, const ValueType &to, SourceRange where);
  Value fragmentRowBase(const FragShape &f, SourceRange where);
  Value fragmentCoordinates(const ValueType &f, bool column, SourceRange where);
  Value coordinateBase(const FragShape &f, bool column, SourceRange where);
  static int64_t coordinateOffset(FragKind kind, bool column, unsigned e);
  Value lowerGather(const IndexExpr &ix);
  Value maskedLoad(const MemRef &m, const std::string &guard);
  void guardedStore(const MemRef &m, const Value &v, const std::string &guard);
  Value combineValues(std::string_view minMax, const Value &a, const Value &b, SourceRange where);
  Value lineReduce(std::string_view name, const Value &f, SourceRange where);      // rowmax(F) .. colsum(F)
  void lowerArgReduction(const OpStmt &s, bool isMax, bool column);               // rowargmin .. colargmax
  void lowerVectorStore(const OpStmt &s, bool reduceAdd);                         // store / red.add of a row or column vector
  std::vector<std::string> accumulatorAsOperand(const Value &p, Scalar to, SourceRange where);
  using GatherCache = std::map<std::vector<std::pair<std::string, int64_t>>, Value>;
  Value gatherElement(const IndexExpr &ix, const std::vector<Value> &at, GatherCache &loaded);
  struct ElementwiseCache {
    std::map<const Expr *, std::vector<Value>> whole;   // nodes lowered once, broadcast to the carrier
    GatherCache gathered;
    std::map<std::pair<const Expr *, int64_t>, Value> memo;   // per node and what its element depends on
  };
  Value elementOf(const Expr &e, unsigned elem, const ValueType &carrier, ElementwiseCache &cache);
  Value elementOfUncached(const Expr &e, unsigned elem, const ValueType &carrier, ElementwiseCache &cache);
  // target (op)= value one element at a time; false when the form is not element-wise (then lower it whole).
  bool assignElementwise(Value &target, const Expr &value, std::optional<BinaryOp> compound, SourceRange where);

  // ---- memory (LowerMemory.cpp)
  bool isMemoryAccess(const Expr &e) const;
  std::optional<MemRef> resolveMemRef(const Expr &e);
  MemRef memRefAt(const Binding &tensor, const std::vector<Value> &indices, unsigned lanes, SourceRange where);
  Value load(const MemRef &m);
  void store(const MemRef &m, const Value &v);
  void setupGlobalTensor(const Param &p, size_t paramIndex);
  std::string smemBase();

  // ---- control flow (LowerControl.cpp)
  void lowerBlock(const BlockStmt &b);
  void lowerStmt(const Stmt &s);
  void lowerIf(const IfStmt &s);
  void lowerFor(const ForStmt &s);
  void lowerPartialUnroll(const ForStmt &s, const Value &lo, const Value &hi, int64_t step, Scalar ty);
  Value lowerLogical(const BinaryExpr &e);

  // ---- roles, elect and builtins (LowerRoles.cpp)
  void lowerRole(const RoleStmt &s);
  void lowerElect(const ElectStmt &s);
  Value lowerBuiltin(const Expr &e, BuiltinValue v);
  Value specialRegister(std::string_view name);
  Value warpIndex();

  // ---- shuffles (LowerShuffle.cpp)
  Value shuffle(std::string_view mode, const Value &v, const Value &lane, SourceRange where);
  Value warpReduce(BinaryOp op, std::string_view minMax, const Value &v, SourceRange where);
  Value warpVote(std::string_view mode, const Value &p);

  // ---- synchronization (LowerBarrier.cpp)
  void lowerSyncthreads(const OpStmt &s);
  void lowerSyncwarp(const OpStmt &s);
  void lowerNamedBarrier(const OpStmt &s, bool arriveOnly);
  void lowerMbarrierInit(const OpStmt &s);
  void lowerArrive(const OpStmt &s);
  void lowerWait(const OpStmt &s);
  std::optional<Address> mbarrierAddress(const Expr &e);

  // ---- cp.async (LowerCpAsync.cpp)
  void lowerCpAsync(const OpStmt &s);
  void lowerCpAsyncCommit(const OpStmt &s);
  void lowerCpAsyncWait(const OpStmt &s);

  // ---- ldmatrix (LowerLdmatrix.cpp)
  void lowerLdmatrix(const OpStmt &s, bool trans);

  // ---- mma.sync and fragment stores (LowerMma.cpp)
  void lowerMmaSync(const OpStmt &s);
  struct FragmentStoreTarget {
    const Binding *tensor;          // GlobalTensor or SharedArray
    std::vector<Value> index;       // point indices of the top-left element
    Scalar elem() const;            // the tensor's element type
  };
  // The destination T[..., r0, c0] of a fragment store (at least minIndices point indices).
  std::optional<FragmentStoreTarget> lowerFragmentStoreTarget(const OpStmt &s, size_t minIndices = 2);
  // False (reported) when the destination's element type is not `stored`, the type the values are stored as.
  bool storedElementMatches(const FragmentStoreTarget &target, Scalar stored, SourceRange R);
  std::pair<const Expr *, std::optional<Scalar>> splitStoreConversion(const Expr &src) const;
  void lowerFragmentStore(const OpStmt &s);
  void fillFragment(Value &frag, const Value &scalar);

  // ---- accumulator lane layouts as element pairs (AccumulatorLayout.cpp)
  std::optional<AccumulatorLayout> accumulatorLayout(const FragShape &f, SourceRange R);
  // Calls emit(pair, element pair's memory reference, mask) for every pair of `layout` at `target`; mask is a
  // .pred register for global destinations when `maskGlobal` (empty otherwise).
  void forEachAccumulatorPair(const FragmentStoreTarget &target, const AccumulatorLayout &layout, bool maskGlobal,
                              SourceRange R, SourceRange dstRange,
                              const std::function<void(size_t, const MemRef &, const std::string &)> &emit);

  // ---- memory atomics and reductions (LowerAtomics.cpp)
  Value lowerAtomicCall(const CallExpr &e, AtomicOp op);
  void lowerReduction(const OpStmt &s, AtomicOp op);
  void lowerFragmentReduction(const OpStmt &s);
  Value lowerOrderedEncoding(const Value &x, bool encode);

  // ---- Hopper (sm_90 / sm_90a) constructs: docs/hopper.md
  // mbarrier transaction counts, remote arrives, try_wait loops (LowerMbarrier.cpp)
  void lowerArriveExpectTx(const OpStmt &s, const Clause &expectTx);
  void lowerArriveRemote(const OpStmt &s, const Clause &cta);
  void lowerMbarrierExpectTx(const OpStmt &s);
  void emitMbarrierWaitLoop(const Address &bar, const std::string &parity);
  // shared tiles as whole operands (SharedTile.cpp)
  std::optional<SharedTile> resolveSharedTile(const Expr &e);
  std::string tileAddress(const SharedTile &t);   // .b32 register with the tile's first (unswizzled) address
  // The column-block layout of a shared array's innermost two dims, and the byte offset a column index
  // adds under it (into acc / constOff, as accumulateSharedOffset); returns the column's phase in its
  // block when known.
  static ColumnBlocks columnBlocks(const SharedArray &a);
  std::optional<int64_t> accumulateColumnOffset(Value col, const Expr *colExpr, const ColumnBlocks &layout,
                                                std::string &acc, int64_t &constOff, SourceRange where);
  // TMA (LowerTma.cpp)
  void lowerTmaLoad(const OpStmt &s);
  void lowerTmaStore(const OpStmt &s);
  void lowerTmaStoreCommit(const OpStmt &s);
  void lowerTmaStoreWait(const OpStmt &s);
  std::string tensorMapAddress(const Param &p);
  bool columnBlockTile(const SharedTile &t, const Expr &tileExpr);
  // wgmma (LowerWgmma.cpp)
  void lowerWgmma(const OpStmt &s);
  void lowerWgmmaSync(const OpStmt &s);
  bool isWgmmaFragmentStore(const OpStmt &s) const;
  void lowerWgmmaFragmentStore(const OpStmt &s);
  // tcgen05 and tensor memory (LowerTcgen05.cpp)
  const SharedArray *tmemArrayOf(const Expr &e);
  std::string tmemBase(const SharedArray &arr);   // ld.shared of the address slot
  std::optional<TmemTile> resolveTmemTile(const Expr &e);
  void lowerTcgen05(const OpStmt &s);
  void lowerTcgen05Mma(const OpStmt &s);
  void lowerTcgen05Copy(const OpStmt &s);
  void lowerTmemFragmentStore(const OpStmt &s);
  // clusters (LowerCluster.cpp)
  void lowerClusterBarrier(const OpStmt &s);
  Value clusterBuiltin(BuiltinValue v);
  // stmatrix (LowerStmatrix.cpp)
  void lowerStmatrix(const OpStmt &s, bool trans);
  // setmaxnreg for role register budgets (LowerRoles.cpp)
  void emitSetMaxNReg(const RoleStmt &s, int64_t regs);
  int64_t entryRegisterAllocation() const;
  bool usesRegisterBudgets() const;

  // ---- operations not lowered yet
  void notSupportedYet(SourceRange r, std::string_view what);

  // ---- lvalues and statements (KernelLowering.cpp)
  std::optional<LValue> resolveLValue(const Expr &e);
  void assign(const LValue &lv, const Value &v, SourceRange where);
  Value readLValue(const LValue &lv);
  void lowerLet(const LetStmt &s);
  void lowerVar(const VarStmt &s);
  void lowerAssign(const AssignStmt &s);
  void lowerOp(const OpStmt &s);
  // The register array element an index expression names, or nullptr (reporting why).
  Value *registerArrayElement(const IndexExpr &e);
  // True when `e` indexes every bracket group of a register array (names one element).
  bool isRegisterArrayRef(const Expr &e) const;
  const RegArray *registerArrayOf(const Expr &e) const;
  ValueType registerArrayElemType(const Expr &e) const;
  std::optional<ValueType> valueTypeOf(const TypeExpr &t);

  // The immutable register and constant an integer value is the sum of, if known.
  std::pair<std::string, int64_t> affineParts(const Value &v) const;
  void accumulateSharedOffset(Value idx, int64_t stride, std::string &acc, int64_t &constOff, SourceRange where);
  PtxWriter &out() { return out_; }
  DiagnosticEngine &diags() { return diags_; }
  Arch arch() const { return arch_; }

private:
  void declareParams();
  std::unordered_map<const Decl *, int64_t> pinnedShapeVars() const;
  void bindShared();
  void fillManifest();
  std::string entrySignature();

  const Kernel &kernel_;
  const KernelInfo &info_;
  Arch arch_;
  PtxWriter &out_;
  DiagnosticEngine &diags_;
  KernelManifest &manifest_;
  std::map<const Decl *, Binding> env_;
  std::map<const Param *, std::string> tensorMapRegs_;   // generic address of each TMA descriptor param
  std::string wgmmaScaleD_;                               // .pred register holding true (wgmma scale-d)
  std::vector<std::string> paramLines_;
  int64_t sharedBytes_ = 0;
  int64_t threads_ = 32;
  std::string smemBaseReg_;
  std::set<std::string> mutableRegs_;   // registers assigned more than once (vars, loop variables)
  std::optional<Value> tidX_, laneId_, warpId_;
  unsigned unrollDepth_ = 0;
  unsigned electDepth_ = 0;
  size_t instructionBudget_ = 2000000;   // bounds the PTX one kernel may produce (unroll blow-up)
  bool budgetReported_ = false;

public:
  // Unroll and size limits.
  bool chargeInstructions(size_t n, SourceRange where);
  // A vector access of `bytes` to global tensor g: the manifest's align covers it (the runtime checks it).
  void requireAlignment(const GlobalTensor *g, int64_t bytes);
};

} // namespace cake::codegen
