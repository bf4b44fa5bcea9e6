// CodeGen: typed AST -> PTX text, its source map, and the launch manifest.
//
//   generatePtx(module, sema, arch, diags)
//     for each kernel: KernelLowering (KernelLowering.h) lowers the body construct by construct into a
//     PtxWriter, and fills the kernel's manifest entry (parameters, ABI order, grid/threads, requires,
//     dynamic shared memory).
//   -> CodegenResult { ptx, lineRanges (PTX line -> .cake range), manifest }
//
// Kernel parameter ABI (docs/codegen.md, docs/manifest.md): one .u64 global pointer per tensor parameter
// in declaration order, then one .s32 per shape variable in order of first appearance, then the scalar
// parameters in declaration order with their own PTX types.  Shared memory is one dynamic buffer
// (`.extern .shared .align 1024 .b8 cake_smem[]`), each shared declaration at a fixed offset; its size is
// the manifest's dynamic_smem.
//
// TMA tensors add one 128-byte `.param .align 64 .b8 cake_tmap_T[128]` per tensor with tma(..) after the
// scalars (a CUtensorMap by value).  Hopper constructs lower as docs/hopper.md describes; a construct this
// version cannot lower is reported as E0701 and no PTX is produced for the module (ok == false).
#pragma once
#include "frontend/AST.h"
#include "frontend/Sema.h"
#include "support/Arch.h"
#include "support/Diagnostics.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cake {

// One entry of the manifest's per-kernel data (docs/manifest.md); expressions are CAKE/C expression text
// over shape variables, integer scalar params, compile-time params and num_sms.
struct ManifestParam {
  std::string name;
  bool isTensor = true;
  std::string dtype;                   // "bf16", "f32", ...
  std::vector<std::string> dims;       // tensors
  std::vector<std::string> strides;    // tensors with stride(...); empty = row-major contiguous
  int64_t align = 0;                   // tensors: required base alignment in bytes (0 = element size)
  bool tma = false;                    // tensors with tma(..): the runtime builds a CUtensorMap
  std::vector<std::string> tmaBox;     // box per dim, outermost first (constants after -D)
  std::string tmaSwizzle = "none";     // "none" "32B" "64B" "128B"
};

struct ManifestShapeVar {
  std::string name;
  int param = -1;   // the first tensor param whose dims mention it as a bare dim
  int dim = -1;
};

struct ManifestAbiSlot {
  enum Kind { Pointer, ShapeVar, Scalar, TensorMap } kind = Pointer;
  int index = -1;   // Pointer/Scalar/TensorMap: index into params; ShapeVar: index into shapeVars
  std::string ptxType;   // "u64", "s32", "f32", ...
};

struct ManifestRequire {
  std::string expr;
  std::string loc;
};

struct KernelManifest {
  std::string name;
  std::string entry;
  std::string loc;
  std::vector<std::pair<std::string, int64_t>> ctParams;
  std::vector<std::pair<std::string, std::string>> ctTypeParams;   // <T: type = ..>: name -> "f16"
  std::vector<ManifestParam> params;
  std::vector<ManifestShapeVar> shapeVars;
  std::vector<ManifestAbiSlot> abi;
  std::string grid[3] = {"1", "1", "1"};
  std::string block[3] = {"32", "1", "1"};
  std::optional<std::array<std::string, 3>> cluster;
  int64_t dynamicSmem = 0;
  std::vector<ManifestRequire> requires_;
};

struct Manifest {
  std::string generator = "cakec";   // "cakec 0.1.0"
  std::string arch;
  std::string cubin;    // file name relative to the manifest
  std::string source;   // the .cake file
  std::string cubinSha256;    // SHA-256 of the cubin's bytes, 64 lowercase hex digits ("" = not written)
  std::string ptxasPath;      // the ptxas that assembled the cubin ("" = not written)
  std::string ptxasVersion;   // its version ("12.4.131"; "" when unknown)
  bool ptxEmbedded = false;   // the "cubin" is a fat binary that also holds the PTX (--embed-ptx)
  std::vector<KernelManifest> kernels;
};

// SHA-256 of `bytes` as 64 lowercase hex digits (OpenSSL EVP).
std::string sha256Hex(std::string_view bytes);

// JSON text of the manifest (docs/manifest.md); deterministic, 2-space indented.
std::string manifestToJson(const Manifest &m);

struct CodegenResult {
  bool ok = false;
  std::string ptx;
  std::vector<SourceRange> lineRanges;   // index = PTX line - 1; invalid where no CAKE range applies
  Manifest manifest;
};

CodegenResult generatePtx(const Module &m, const SemaResult &sema, Arch arch, DiagnosticEngine &diags);

// ".version 8.0" for the target.
std::string_view ptxVersionFor(Arch arch);

} // namespace cake
