// Types of CAKE values, and the TypeContext that owns them.
//
// A Type is one immutable object; sema stores `const Type *` in Expr::type and Decl::type, and every later
// stage (verify, cost, codegen) reads them.  Kinds:
//   Error         a sub-expression that failed to type; every rule accepts it silently (no cascades)
//   Void          statements / no value
//   UntypedInt    integer literals, compile-time parameters and arithmetic on them: adapt to the other
//                 operand (default i32, or i64 when the value does not fit)
//   UntypedFloat  float literals and `inf`: adapt to a float type (default f32)
//   Scalar        pred i32 u32 i64 f16 bf16 f32 f8e4m3 f8e5m2
//   Vector        scalar x {2,4,8,16}
//   Tensor        element type + address space (global/shared/register) + bracket groups of dimensions;
//                 dims are kept symbolically (source text and the AST Expr) and as evaluated constants
//                 where they are constant.  Tile views (a[s], a[s][r +: 64, :], b[s].T) are tensors too.
//   Fragment      frag<kind, dtype, M, N, K>: an MMA operand held in registers, distributed over a warp
//                 (mma.sync) or a warpgroup (wgmma); knows its elements and 32-bit registers per thread
//   MBarrier / MBarrierArray / NamedBarrier / Role / BuiltinNamespace: names that are not values
//
// Scalars, vectors, fragments and the untyped/error kinds are interned (compare pointers); tensors are
// created per declaration or view and compared structurally with sameType().
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace cake {

struct Expr;

// TF32 is the element type of mma.sync A and B fragments only (frag<mma_a|mma_b, tf32, 16, 8, 8>): an f32 value
// rounded to a 10-bit mantissa, held in a 32-bit register; it is no value type of its own (Sema refuses it
// outside those fragments, E0384) and fragment elements read and write it as f32.
enum class ScalarKind : uint8_t { Pred, I32, U32, I64, F16, BF16, F32, F8E4M3, F8E5M2, TF32 };
// TensorMemory: Blackwell tensor memory (`tmem` declarations, sm_100a): 128 lanes x up to 512 32-bit columns
// per CTA, reachable only through tcgen05 operations.
enum class AddressSpace : uint8_t { Global, Shared, Register, TensorMemory };
// MmaC / WgmmaAcc are accumulator layouts; as values they may hold any non-f8 scalar (coordinates as i32,
// masks as pred).  MmaRow / WgmmaRow are row vectors: one value per row of a 16-row mma_c tile or a 64-row
// wgmma accumulator, held by the lanes that own the row (2 rows per thread).  MmaCol / WgmmaCol are column
// vectors: one value per column of the rows a warp holds (an 8-column mma_c tile, or the N columns of the
// warp's 16-row band of a wgmma accumulator), held by the lanes that own the column (N / 4 per thread).
// TmemAcc is a 128 x N tile read out of tensor memory by a warpgroup with tcgen05.ld 32x32b: thread t of the
// warpgroup holds row t, columns 0 .. N-1 (element j = column j).
enum class FragKind : uint8_t { MmaA, MmaB, MmaC, WgmmaA, WgmmaAcc, MmaRow, WgmmaRow, MmaCol, WgmmaCol, TmemAcc };

enum class TypeKind : uint8_t {
  Error, Void, UntypedInt, UntypedFloat, Scalar, Vector, Tensor, Fragment,
  MBarrier, MBarrierArray, NamedBarrier, Role, BuiltinNamespace
};

std::string_view scalarName(ScalarKind k);                 // "bf16"
std::optional<ScalarKind> parseScalarName(std::string_view name);
bool isTf32TypeName(std::string_view name);                // "tf32", "tf32x4": not value types (see TF32)
unsigned scalarBits(ScalarKind k);                         // pred = 1 (stored in a predicate register)
bool isFloatScalar(ScalarKind k);
bool isIntegerScalar(ScalarKind k);
bool isF8Scalar(ScalarKind k);
std::string_view addressSpaceName(AddressSpace s);         // "global", "shared", "register"
std::string_view fragKindName(FragKind k);                 // "mma_a" ...
std::optional<FragKind> parseFragKind(std::string_view name);

// One dimension of a tensor: as written (text, expr) and its value when it is a compile-time constant.
struct TensorDim {
  std::string text;                 // "BM", "64", "M"
  const Expr *expr = nullptr;       // the AST expression it came from (null for synthesized dims)
  std::optional<int64_t> value;     // evaluated constant, if constant
};
using DimGroup = std::vector<TensorDim>;

// Two dims are the same when both are constant and equal, or both symbolic with the same text.
bool sameDim(const TensorDim &a, const TensorDim &b);

struct Type {
  TypeKind kind = TypeKind::Error;
  // Scalar / Vector: the element; Fragment: the data type
  ScalarKind scalar = ScalarKind::I32;
  unsigned width = 1;                       // Vector lanes
  // Tensor
  const Type *element = nullptr;            // scalar, vector or fragment
  AddressSpace space = AddressSpace::Register;
  std::vector<DimGroup> groups;             // outermost first
  bool transposed = false;                  // b[s].T (a 2-D tile read as its transpose)
  // Fragment
  FragKind frag = FragKind::MmaA;
  int64_t m = 0, n = 0, k = 0;
  // MBarrierArray, NamedBarrier (set: a named barrier array)
  std::optional<int64_t> count;             // number of barriers when constant

  // ---- classification
  bool isError() const { return kind == TypeKind::Error; }
  bool isVoid() const { return kind == TypeKind::Void; }
  bool isUntyped() const { return kind == TypeKind::UntypedInt || kind == TypeKind::UntypedFloat; }
  bool isScalar() const { return kind == TypeKind::Scalar; }
  bool isVector() const { return kind == TypeKind::Vector; }
  bool isTensor() const { return kind == TypeKind::Tensor; }
  bool isFragment() const { return kind == TypeKind::Fragment; }
  bool isPred() const { return kind == TypeKind::Scalar && scalar == ScalarKind::Pred; }
  // Integer scalars and untyped integers (vectors excluded).
  bool isInteger() const { return kind == TypeKind::UntypedInt || (kind == TypeKind::Scalar && isIntegerScalar(scalar)); }
  // Float scalars and untyped floats.
  bool isFloat() const { return kind == TypeKind::UntypedFloat || (kind == TypeKind::Scalar && isFloatScalar(scalar)); }
  // Scalar or vector or untyped, not pred.
  bool isNumeric() const;
  // A value that lives in registers: scalar, vector, fragment, or a register tensor of them.
  bool isRegisterValue() const;

  // ---- queries later stages use
  // Scalar: itself; Vector: lane type; Fragment: dtype; Tensor: its element type.  Null for other kinds.
  ScalarKind elementScalar() const;
  unsigned vectorWidth() const { return kind == TypeKind::Vector ? width : 1; }
  // Bytes of one value: scalar/vector size, fragment registers per thread * 4, tensor total bytes when
  // every dim is constant.  nullopt when unknown (symbolic tensor dims) or not a value.
  std::optional<int64_t> sizeInBytes() const;
  // Tensor: number of dims of the outermost bracket group (what the next index list must supply).
  size_t rank() const { return groups.empty() ? 0 : groups.front().size(); }
  // Tensor: all dims, outermost group first, flattened.
  std::vector<TensorDim> allDims() const;
  // Tensor: product of all dims when constant.
  std::optional<int64_t> numElements() const;
  // Fragment: elements of dtype each thread holds, and the 32-bit registers they occupy.
  int64_t fragElementsPerThread() const;
  int64_t fragRegistersPerThread() const;
  // Fragment: threads it is spread over (32 for mma.sync, 128 for wgmma).
  int64_t fragThreads() const;
  bool isWgmmaFrag() const {
    return kind == TypeKind::Fragment && (frag == FragKind::WgmmaA || frag == FragKind::WgmmaAcc || frag == FragKind::WgmmaRow ||
                                          frag == FragKind::WgmmaCol);
  }
  // Fragment in an accumulator layout (mma_c, wgmma_acc, tmem_acc), of any element type.
  bool isAccLayout() const {
    return kind == TypeKind::Fragment && (frag == FragKind::MmaC || frag == FragKind::WgmmaAcc || frag == FragKind::TmemAcc);
  }
  // A row vector (mma_row, wgmma_row).
  bool isRowVector() const { return kind == TypeKind::Fragment && (frag == FragKind::MmaRow || frag == FragKind::WgmmaRow); }
  // A column vector (mma_col, wgmma_col).
  bool isColVector() const { return kind == TypeKind::Fragment && (frag == FragKind::MmaCol || frag == FragKind::WgmmaCol); }
  bool isRowOrColVector() const { return isRowVector() || isColVector(); }
};

// Printing for diagnostics: `bf16`, `f16x2`, `bf16[S][BM, BK] (shared)`, `frag<mma_c, f32, 16, 8, 16>`,
// `integer literal`, `mbarrier[4]`.
std::string typeToString(const Type *t);
// Structural equality (pointer equality for interned kinds).
bool sameType(const Type *a, const Type *b);

class TypeContext {
public:
  TypeContext();
  TypeContext(const TypeContext &) = delete;
  TypeContext &operator=(const TypeContext &) = delete;

  const Type *error() const { return error_; }
  const Type *voidType() const { return void_; }
  const Type *untypedInt() const { return untypedInt_; }
  const Type *untypedFloat() const { return untypedFloat_; }
  const Type *mbarrier() const { return mbarrier_; }
  const Type *namedBarrier() const { return namedBarrier_; }
  const Type *role() const { return role_; }
  const Type *builtinNamespace() const { return builtinNamespace_; }

  const Type *scalar(ScalarKind k);
  const Type *pred() { return scalar(ScalarKind::Pred); }
  const Type *i32() { return scalar(ScalarKind::I32); }
  const Type *vector(ScalarKind k, unsigned width);
  // Scalar or vector by name ("bf16", "f32x4"); nullptr when the name is not a type.
  const Type *scalarOrVectorByName(std::string_view name);
  const Type *fragment(FragKind kind, ScalarKind dtype, int64_t m, int64_t n, int64_t k);
  const Type *tensor(const Type *element, AddressSpace space, std::vector<DimGroup> groups, bool transposed = false);
  const Type *mbarrierArray(std::optional<int64_t> count);
  // `barrier NAME[count]`: a NamedBarrier whose `count` is set; indexing it gives namedBarrier().
  const Type *namedBarrierArray(int64_t count);
  // The same vector/scalar/fragment with another element type (conversions), or nullptr.
  const Type *withElement(const Type *t, ScalarKind k);

private:
  std::deque<Type> storage_;
  const Type *make(Type t);
  const Type *error_, *void_, *untypedInt_, *untypedFloat_, *mbarrier_, *namedBarrier_, *role_, *builtinNamespace_;
  std::map<std::pair<int, unsigned>, const Type *> vectors_;   // (scalar kind, width); width 1 = scalar
  std::map<std::tuple<int, int, int64_t, int64_t, int64_t>, const Type *> fragments_;
  std::map<int64_t, const Type *> mbarrierArrays_;            // -1 = unknown count
  std::map<int64_t, const Type *> namedBarrierArrays_;
};

} // namespace cake
