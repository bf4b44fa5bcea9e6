// ShapeBinding: a kernel's shape variables bound to the values of `--shape`, checked against the kernel's
// `requires(...)`, and the launch grid evaluated at that shape.
//
// Errors are diagnostics: a shape variable without a value (E0801), a --shape name that no kernel in the
// file has (E0802, reported by the caller for the whole module), a requirement that is false at the shape
// (E0803, at the requirement), a grid that does not evaluate to 1..2^31-1 blocks per dimension (E0804).
// Expressions are evaluated with `evaluateUniform`, which understands integer literals, compile-time
// parameters, shape variables, arithmetic, comparisons, && || !, cdiv/min/max/select, integer conversions
// and num_sms; anything else (a scalar kernel parameter) makes the value unknown.
#pragma once
#include "frontend/AST.h"
#include "frontend/KernelInfo.h"
#include "support/Diagnostics.h"

#include <array>
#include <map>
#include <optional>
#include <string>

namespace cake::cost {

struct ShapeBinding {
  std::map<const Decl *, int64_t> values;     // ShapeVar decl -> value
  std::map<std::string, int64_t> byName;      // the same, by name (for reports)
  std::array<int64_t, 3> grid = {1, 1, 1};
  int64_t numSms = 0;
  int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
};

// Value of a uniform integer expression at the binding (nullopt when it is not computable).
std::optional<int64_t> evaluateUniform(const Expr &e, const ShapeBinding &binding);

// Binds `shape` to `kernel`'s shape variables.  Names in `shape` the kernel does not have are ignored here
// (see unknownShapeNames).  Reports E0801/E0803/E0804 and returns nullopt on failure.
std::optional<ShapeBinding> bindShape(const Kernel &kernel, const KernelInfo &info,
                                      const std::map<std::string, int64_t> &shape, int64_t numSms,
                                      DiagnosticEngine &diags);

// Names in `shape` that are not a shape variable of any of `kernels`.
std::vector<std::string> unknownShapeNames(const std::vector<const Kernel *> &kernels,
                                           const std::map<std::string, int64_t> &shape);

// "M=4096,N=4096" (map order).
std::string shapeToString(const std::map<std::string, int64_t> &shape);

} // namespace cake::cost
