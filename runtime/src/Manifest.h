// The launch manifest in memory: what codegen promises about each kernel of a cubin.
//
// parseManifest() reads the JSON text (format in docs/manifest.md), checks every field, parses every
// expression and checks that each expression only mentions names the kernel defines (shape variables,
// integer scalar params, compile-time params, num_sms).  All of this happens at load time so that a bad
// manifest is reported once, with the JSON path of the bad field, instead of at some later launch.
#pragma once
#include "Expr.h"
#include "cake/runtime.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cake::rt {

constexpr int kManifestVersion = 1;
constexpr std::string_view kManifestFormat = "cake-manifest";
constexpr int kMaxTensorRank = 8;
constexpr int kMaxTmaRank = 5;

struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Values of the CUDA driver enums (CUtensorMapSwizzle etc.); checked against cuda.h by a unit test.
enum class TmaSwizzle : int { None = 0, B32 = 1, B64 = 2, B128 = 3 };
enum class TmaL2Promotion : int { None = 0, B64 = 1, B128 = 2, B256 = 3 };
enum class TmaOobFill : int { Zero = 0, Nan = 1 };

struct TensorMapSpec {
  std::vector<Expr> box;             // box size per dim, outermost first (same order as dims)
  std::vector<int64_t> boxValues;    // the same, evaluated at load (compile-time constants, checked)
  TmaSwizzle swizzle = TmaSwizzle::None;
  TmaL2Promotion l2Promotion = TmaL2Promotion::None;
  TmaOobFill oobFill = TmaOobFill::Zero;
};

struct ParamSpec {
  std::string name;
  cake_arg_kind kind = CAKE_ARG_TENSOR;
  cake_dtype dtype = CAKE_DTYPE_INVALID;
  // Tensors only:
  std::vector<Expr> dims;            // outermost first
  bool contiguous = true;            // row-major; else `strides` (in elements) applies
  std::vector<Expr> strides;
  int64_t align = 1;                 // required alignment of the base address, bytes
  bool writes = true;                // the kernel may write it ("access" is not "read")
  std::optional<TensorMapSpec> tma;

  int rank() const { return static_cast<int>(dims.size()); }
};

// Where a shape variable's value comes from: dims[dim] (or strides[dim]) of tensor param `param`, or
// nowhere (param < 0: the caller must give it explicitly).
struct ShapeVarSpec {
  std::string name;
  int param = -1;
  int dim = -1;
  bool fromStride = false;
};

struct RequireSpec {
  Expr expr;          // what is evaluated
  std::string text;   // the clause as the user wrote it (for messages)
  std::string loc;    // "file.cake:4:12", may be empty
};

enum class AbiKind { Pointer, ShapeVar, Scalar, TensorMap, Value };
// The PTX type of an ABI value slot.
enum class AbiType { U8, S32, U32, S64, U64, B16, F32 };

struct AbiSlotSpec {
  AbiKind kind = AbiKind::Pointer;
  int param = -1;        // Pointer, Scalar, TensorMap: index into params
  int shapeVar = -1;     // ShapeVar: index into shapeVars
  AbiType type = AbiType::S32; // Value: the slot's type (S32, U32, S64 or U64)
  Expr expr;             // Value
};

struct KernelSpec {
  std::string name;
  std::string entry;     // the PTX .entry symbol
  std::string loc;
  std::vector<std::pair<std::string, int64_t>> ctParams;
  std::vector<std::pair<std::string, cake_dtype>> ctTypeParams;   // "T": "f16" (never in expressions)
  std::vector<ParamSpec> params;
  std::vector<ShapeVarSpec> shapeVars;
  Expr grid[3];
  Expr block[3];
  Expr cluster[3];
  bool hasCluster = false;
  Expr dynamicSmem;
  std::vector<RequireSpec> requirements;
  std::vector<AbiSlotSpec> abi;
  bool usesNumSms = false;   // some launch-time expression mentions num_sms

  int findParam(std::string_view name) const;
  int findShapeVar(std::string_view name) const;
  const int64_t *findCtParam(std::string_view name) const;
};

struct ManifestSpec {
  int version = kManifestVersion;
  std::string arch;
  std::string cubin;     // file name in the manifest's folder (no '/', not "." or "..")
  std::string cubinSha256; // 64 lowercase hex digits, or empty when the manifest has no "cubin_sha256"
  std::string ptxasPath, ptxasVersion; // "ptxas": {"path", "version"}, informational, may be empty
  bool ptxEmbedded = false; // "ptx_embedded": the cubin file is a fat binary that also holds the PTX
  std::string source;
  std::vector<KernelSpec> kernels;
};

// Throws ManifestError("kernels[0] (gemm): params[2] (C): unknown dtype 'bf17'").
ManifestSpec parseManifest(std::string_view jsonText);

std::string_view abiTypeName(AbiType type);
size_t abiTypeSize(AbiType type);

} // namespace cake::rt
