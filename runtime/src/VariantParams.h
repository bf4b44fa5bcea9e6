// The arguments of a library variant (docs/library.md, "Variants of several kernels").
//
// A variant launches one kernel, or several in order ("kernel", then "then") on the caller's stream.  Its
// parameters are those of its kernels, matched by name: each name once, in order of first appearance, with
// the same kind, dtype and rank wherever it appears.  The names its "workspace" list gives are not arguments
// of the call: the runtime allocates them (f32 partial sums of a split-K GEMM), sized by their declared dims at
// the call's shape.  What is left is the variant's signature, which every variant of a library shares.
// Used by `cakec library build` (src/library/TableCheck.cpp) and by the runtime's loader (Library.cpp).
#pragma once
#include "Manifest.h"

#include <string>
#include <vector>

namespace cake::rt {

struct VariantParams {
  std::vector<const ParamSpec *> signature;   // the caller's arguments, in order
  std::vector<const ParamSpec *> workspace;   // in the order of the "workspace" list
  std::vector<size_t> workspaceOwner;         // per workspace: the first kernel declaring it (its compile-time
                                              // parameters size the workspace's dims)
  // kernelArgs[k][p]: where parameter p of kernel k comes from: i >= 0 signature[i], -1 - w workspace[w]
  std::vector<std::vector<int>> kernelArgs;
  std::string error;   // empty when the kernels' parameters fit together
};

VariantParams variantParams(const std::vector<const KernelSpec *> &kernels, const std::vector<std::string> &workspace);

// Why signature `b` differs from `a` ("parameter 2 is 'W' instead of 'C'"), or "" when they are the same.
std::string signatureDifference(const std::vector<const ParamSpec *> &a, const std::vector<const ParamSpec *> &b);

} // namespace cake::rt
