// variantParams / signatureDifference (VariantParams.h): one pass over the kernels' parameters in launch
// order, a name-indexed table of those seen.
#include "VariantParams.h"

#include "DType.h"

#include <algorithm>

namespace cake::rt {

namespace {

std::string kindText(const ParamSpec &p) {
  return std::string(p.kind == CAKE_ARG_TENSOR ? "tensor" : "scalar") + " of " + std::string(dtypeName(p.dtype));
}

// "" when a and b declare the same parameter (name aside), else how b differs.
std::string paramDifference(const ParamSpec &a, const ParamSpec &b) {
  if (a.kind != b.kind || a.dtype != b.dtype)
    return "'" + b.name + "' is a " + kindText(b) + " instead of a " + kindText(a);
  if (a.rank() != b.rank())
    return "'" + b.name + "' has rank " + std::to_string(b.rank()) + " instead of " + std::to_string(a.rank());
  return "";
}

} // namespace

VariantParams variantParams(const std::vector<const KernelSpec *> &kernels, const std::vector<std::string> &workspace) {
  VariantParams out;
  out.workspace.assign(workspace.size(), nullptr);
  out.workspaceOwner.assign(workspace.size(), 0);
  std::vector<const ParamSpec *> seen;   // every name once, first declaration
  for (size_t kernelIndex = 0; kernelIndex < kernels.size(); ++kernelIndex) {
    const KernelSpec *k = kernels[kernelIndex];
    std::vector<int> args;
    for (const ParamSpec &p : k->params) {
      auto first = std::find_if(seen.begin(), seen.end(), [&](const ParamSpec *s) { return s->name == p.name; });
      if (first != seen.end()) {
        std::string why = paramDifference(**first, p);
        if (why.empty() && p.kind == CAKE_ARG_TENSOR) {
          bool sameDims = (*first)->dims.size() == p.dims.size();
          for (size_t d = 0; sameDims && d < p.dims.size(); ++d) sameDims = (*first)->dims[d].text() == p.dims[d].text();
          if (!sameDims) why = "'" + p.name + "' has other dims";
        }
        if (!why.empty() && out.error.empty()) out.error = "kernel " + k->name + ": " + why + " than in an earlier kernel";
      } else {
        seen.push_back(&p);
      }
      auto w = std::find(workspace.begin(), workspace.end(), p.name);
      if (w != workspace.end()) {
        size_t index = static_cast<size_t>(w - workspace.begin());
        if (p.kind != CAKE_ARG_TENSOR && out.error.empty())
          out.error = "workspace '" + p.name + "' is not a tensor parameter";
        if (!out.workspace[index]) {
          out.workspace[index] = &p;
          out.workspaceOwner[index] = kernelIndex;
        }
        args.push_back(-1 - static_cast<int>(index));
        continue;
      }
      auto s = std::find_if(out.signature.begin(), out.signature.end(),
                            [&](const ParamSpec *x) { return x->name == p.name; });
      if (s == out.signature.end()) {
        out.signature.push_back(&p);
        s = out.signature.end() - 1;
      }
      args.push_back(static_cast<int>(s - out.signature.begin()));
    }
    out.kernelArgs.push_back(std::move(args));
  }
  for (size_t w = 0; w < workspace.size() && out.error.empty(); ++w) {
    if (!out.workspace[w]) out.error = "workspace '" + workspace[w] + "' is no parameter of the variant's kernels";
    for (size_t v = 0; v < w && out.error.empty(); ++v)
      if (workspace[v] == workspace[w]) out.error = "workspace '" + workspace[w] + "' is listed twice";
  }
  return out;
}

std::string signatureDifference(const std::vector<const ParamSpec *> &a, const std::vector<const ParamSpec *> &b) {
  if (a.size() != b.size())
    return std::to_string(b.size()) + " parameters instead of " + std::to_string(a.size());
  for (size_t p = 0; p < a.size(); ++p) {
    if (a[p]->name != b[p]->name)
      return "parameter " + std::to_string(p) + " is '" + b[p]->name + "' instead of '" + a[p]->name + "'";
    if (std::string why = paramDifference(*a[p], *b[p]); !why.empty()) return "parameter " + why;
  }
  return "";
}

} // namespace cake::rt
